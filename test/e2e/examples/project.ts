/**
 * Thin wrapper over the lifecycle harness (test/e2e/lifecycle/harness.mjs) for running an example
 * with the real Pulumi CLI: the harness makes the temporary project, file backend and
 * PULUMI_HOME; this puts the example's own files in it (Pulumi.yaml, package.json, index.ts,
 * tsconfig.json, stack config files) and installs the example's dependencies as a user's
 * `npm install` would, with `pulumi-cms` from this checkout's packed tarball (once per example
 * and test run), so Pulumi runs the example's TypeScript as a user would (type-checked by
 * ts-node with the project's TypeScript) against the package as it ships.
 *
 * The connection comes from the environment (`CMS_ENDPOINT`, `CMS_TOKEN`), exactly as in the
 * examples' READMEs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { parse } from "yaml";
import { createProject, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { installedOnce, providerTarball } from "../../support/packages";
import { assertBuilt, REPO, type ExampleName } from "./workspace";

/**
 * The example's `node_modules`: its package.json's dependencies, `pulumi-cms` from the tarball,
 * installed once per test run. The emulator's package is left out (the tests run their own
 * emulator), and install scripts do not run (`@pulumi/kubernetes`'s would download its plugin;
 * the tests put the plugin on PATH).
 */
async function installedDependencies(manifest: string): Promise<string> {
  const pkg = JSON.parse(manifest) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const { "@pulumi-cms/emulator": _emulator, ...devDependencies } = pkg.devDependencies ?? {};
  const dir = await installedOnce(
    { dependencies: { ...pkg.dependencies, "pulumi-cms": `file:${providerTarball()}` }, devDependencies },
    process.env,
    ["--ignore-scripts"],
  );
  return path.join(dir, "node_modules");
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
    nodeModules: await installedDependencies(files["package.json"]),
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

/**
 * After a native example's first `up`: the service holds one running cluster of the example's
 * sizes (1 control plane, 2 small workers), auto-named; the stack's outputs are `outputsOf` it,
 * the kubeconfig the service's, as a secret; the state holds no plain token.
 */
export async function expectOneNewCluster(
  emu: LifecycleEmulator,
  project: PulumiProject,
  outputsOf: (cluster: { id: string; name: string }) => Record<string, unknown>,
): Promise<void> {
  const [cluster, ...others] = await emu.clusters();
  expect(others).toEqual([]);
  expect(cluster).toMatchObject({ status: "running", control_planes: 1, workers: 2, node_size: "small" });
  expect(await project.outputs()).toEqual({ ...outputsOf(cluster), kubeconfig: "[secret]" });
  expect(cluster.name).toMatch(/^cluster-[0-9a-z]{7}$/);
  const kubeconfig = (await emu.api("GET", `/v1/clusters/${cluster.id}/kubeconfig`)).text;
  expect((await project.outputs({ showSecrets: true })).kubeconfig).toBe(kubeconfig);
  expect((await project.exportStack()).text).not.toContain(emu.token);
}
