/**
 * examples/yaml with the real Pulumi CLI against the emulator, run as a user runs it: the
 * example's Pulumi.yaml naming the directory where `pulumi-resource-cms` was installed from the
 * package's tarball (test/support/native.ts), the YAML language host built by
 * scripts/ensure-pulumi. The example is the README's YAML program, word for word.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LifecycleEmulator,
  lifecycleSkipped,
  type PulumiProject,
  REPO_ROOT,
  type RunResult,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import { codeBlocks } from "../../support/docs";
import { clusterSteps, createNativeProject, NATIVE_CLUSTER, nativeExampleFiles, nativePluginBin } from "../../support/native";
import { expectOneNewCluster, mutations } from "./project";

const STEP = 5 * 60_000;

it("is the YAML program of docs/_index.md, word for word", () => {
  const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "_index.md"), "utf8");
  const programs = codeBlocks(page, ["yaml"]).filter((b) => b.includes("runtime: yaml"));
  expect(programs).toHaveLength(1);
  expect(fs.readFileSync(path.join(REPO_ROOT, "examples", "yaml", "Pulumi.yaml"), "utf8")).toBe(programs[0]);
});

describe.skipIf(lifecycleSkipped())("examples/yaml (real CLI, YAML language host, emulator)", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  const runs: RunResult[] = [];
  const track = <T extends RunResult>(r: T): T => {
    runs.push(r);
    return r;
  };

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNativeProject({
      name: "clusters",
      files: nativeExampleFiles("yaml", await nativePluginBin()),
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
      // As on a user's machine: nothing but the program keeps the CLI from looking for plugins online.
      env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "" },
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "previews the create without a call that writes",
    async () => {
      const preview = track(await project.preview());
      expect(preview.output).toMatch(/\+\s+cms:index:Cluster\s+cluster\s+create/);
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );

  it(
    "up creates one running cluster and exports its name, its status as getCluster reads it, and the kubeconfig as a secret",
    async () => {
      expect(clusterSteps(track(await project.up()))).toEqual(["create"]);
      await expectOneNewCluster(emu, project, (c) => ({ name: c.name, status: "running" }));
    },
    STEP,
  );

  it(
    "has nothing to do on a second preview; more workers in Pulumi.yaml scale in place; destroy deletes the cluster",
    async () => {
      track(await project.preview(["--expect-no-changes"]));
      const [{ id }] = await emu.clusters();
      const file = path.join(project.dir, "Pulumi.yaml");
      const program = fs.readFileSync(file, "utf8");
      expect(program).toContain("      workers: 2\n");
      fs.writeFileSync(file, program.replace("      workers: 2\n", "      workers: 3\n"));
      await emu.control.resetRequestCounts();
      expect(clusterSteps(track(await project.up()))).toEqual(["update"]);
      expect(await mutations(emu)).toEqual({ post: 0, patch: 1, del: 0 });
      expect(await emu.clusters()).toMatchObject([{ id, workers: 3, status: "running" }]);

      track(await project.destroy());
      expect(await emu.clusters()).toEqual([]);
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER)).toEqual([]);
    },
    STEP,
  );

  it("neither downloads a plugin nor warns that it came from PATH, though it is on PATH: Pulumi.yaml names its directory", () => {
    expect(runs).toHaveLength(5);
    for (const run of runs) expect(run.output, run.command).not.toMatch(/from \$PATH|downloading/i);
  });
});
