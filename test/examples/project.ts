/**
 * Thin wrapper over the lifecycle harness (test/lifecycle/harness.mjs) for running an example
 * with the real Pulumi CLI: the harness makes the temporary project, file backend and
 * PULUMI_HOME; this puts the example's own files in it (Pulumi.yaml, package.json, index.ts,
 * tsconfig.json, stack config files) and links `typescript` and `@types` next to the harness's
 * `pulumi-cms` and `@pulumi` links, so Pulumi runs the example's TypeScript as a user would
 * (type-checked by ts-node with the project's TypeScript).
 *
 * The connection comes from the environment (`CMS_ENDPOINT`, `CMS_TOKEN`), exactly as in the
 * examples' READMEs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { createProject, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { assertBuilt, REPO, type ExampleName } from "./workspace";

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
    env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token },
  });
  const nm = path.join(project.dir, "node_modules");
  for (const pkg of ["typescript", "@types"]) {
    fs.symlinkSync(path.join(REPO, "node_modules", pkg), path.join(nm, pkg), "dir");
  }
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
