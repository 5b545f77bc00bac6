/**
 * Thin wrapper over the lifecycle harness (test/lifecycle/harness.mjs) for running an example
 * with the real Pulumi CLI: the harness makes the temporary project, file backend and
 * PULUMI_HOME; this puts the example's own files in it (Pulumi.yaml, package.json, index.ts,
 * tsconfig.json, stack config files) and installs the example's dependencies as a user's
 * `npm install` would, with `pulumi-cms` from this checkout's packed tarball (once per example
 * and test file), so Pulumi runs the example's TypeScript as a user would (type-checked by
 * ts-node with the project's TypeScript) against the package as it ships.
 *
 * The connection comes from the environment (`CMS_ENDPOINT`, `CMS_TOKEN`), exactly as in the
 * examples' READMEs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { createProject, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { installProject, providerTarball, workDir } from "../support/packages";
import { assertBuilt, REPO, type ExampleName } from "./workspace";

const installs = new Map<ExampleName, Promise<string>>();

/**
 * The example's `node_modules`: its package.json's dependencies, `pulumi-cms` from the tarball.
 * The emulator's package is left out (the tests run their own emulator), and install scripts do
 * not run (`@pulumi/kubernetes`'s would download its plugin; the tests put the plugin on PATH).
 */
function installedDependencies(name: ExampleName, manifest: string): Promise<string> {
  let install = installs.get(name);
  if (!install) {
    const pkg = JSON.parse(manifest) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    const { "@pulumi-cms/emulator": _emulator, ...devDependencies } = pkg.devDependencies ?? {};
    const dir = path.join(workDir(`example-${name}`), "install");
    install = installProject(
      dir,
      { dependencies: { ...pkg.dependencies, "pulumi-cms": `file:${providerTarball()}` }, devDependencies },
      process.env,
      ["--ignore-scripts"],
    ).then(() => path.join(dir, "node_modules"));
    installs.set(name, install);
  }
  return install;
}

/** Files of an example the CLI needs (README and node_modules stay behind). */
function exampleFiles(name: ExampleName): Record<string, string> {
  const dir = path.join(REPO, "examples", name);
  const files: Record<string, string> = {};
  for (const f of fs.readdirSync(dir)) {
    if (/^(Pulumi(\.[\w-]+)?\.yaml|package\.json|tsconfig\.json|index\.ts)$/.test(f)) {
      files[f] = fs.readFileSync(path.join(dir, f), "utf8");
    }
  }
  return files;
}

/**
 * A temporary stack of `examples/<name>` connected to `emu` through the environment.
 * Dispose with `project.dispose()` (after destroying what it created).
 */
export async function exampleProject(name: ExampleName, emu: LifecycleEmulator, stack = "dev"): Promise<PulumiProject> {
  assertBuilt();
  const files = exampleFiles(name);
  const projectName = String(parse(files["Pulumi.yaml"]).name);
  const project = await createProject({
    name: projectName,
    stack,
    // The harness writes a JavaScript index.js; the example's package.json points at index.ts.
    program: "// unused: package.json's main is index.ts\n",
    files,
    nodeModules: await installedDependencies(name, files["package.json"]),
    env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token },
  });
  return project;
}

/** Request counts of the emulator, with the three mutating routes always present. */
export async function mutations(emu: LifecycleEmulator): Promise<{ post: number; patch: number; del: number }> {
  const counts = await emu.control.requestCounts();
  return {
    post: counts["POST /v1/clusters"] ?? 0,
    patch: counts["PATCH /v1/clusters/:cluster_id"] ?? 0,
    del: counts["DELETE /v1/clusters/:cluster_id"] ?? 0,
  };
}
