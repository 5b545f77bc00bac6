/**
 * examples/go with the real Pulumi CLI against the emulator, run as a user runs it: the example's
 * files with Pulumi.yaml naming the plugin's directory and go.mod's `replace` pointing at this
 * checkout's sdk/go (test/support/native.ts), `pulumi-resource-cms` installed from the package's
 * tarball, and the program compiled by the CLI's Go language host on every preview and up (no
 * prebuilt binary). Then the Go module instructions of docs/installation-configuration.md, typed in a new project beside a
 * clone of this repository.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
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
import { workDir } from "../../support/packages";
import { expectOneNewCluster, mutations } from "./project";

const execFile = promisify(execFileCb);
/** A preview or up compiles the program first: minutes with a cold Go build cache. */
const STEP = 15 * 60_000;
const PATH_WARNING = /warning: using pulumi-resource-cms from \$PATH/;

describe.skipIf(lifecycleSkipped())("examples/go (real CLI, Go language host, emulator)", () => {
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
      name: "cms-go",
      files: nativeExampleFiles("go", await nativePluginBin()),
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
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
    "up creates one running cluster of the config's defaults and exports it, the kubeconfig a secret",
    async () => {
      expect(clusterSteps(track(await project.up()))).toEqual(["create"]);
      await expectOneNewCluster(emu, project, (c) => ({ id: c.id, name: c.name, status: "running", nodeCount: 3 }));
    },
    STEP,
  );

  it(
    "has nothing to do on a second preview; `pulumi config set workers 3` scales in place; `controlPlanes` 3 replaces the cluster, the new one first; destroy deletes it",
    async () => {
      track(await project.preview(["--expect-no-changes"]));
      const { id } = await project.outputs();
      await emu.control.resetRequestCounts();
      await project.setConfig("workers", 3);
      expect(clusterSteps(track(await project.up()))).toEqual(["update"]);
      expect(await mutations(emu)).toEqual({ post: 0, patch: 1, del: 0 });
      expect(await emu.clusters()).toMatchObject([{ id, workers: 3, status: "running" }]);
      expect((await project.outputs()).nodeCount).toBe(4);

      await project.setConfig("controlPlanes", 3);
      expect(clusterSteps(track(await project.up()))).toEqual(["create-replacement", "replace", "delete-replaced"]);
      const replaced = await project.outputs();
      expect(replaced.id).not.toBe(id);
      expect(await emu.clusters()).toMatchObject([{ id: replaced.id, control_planes: 3, workers: 3, status: "running" }]);
      expect(replaced.nodeCount).toBe(6);

      track(await project.destroy());
      expect(await emu.clusters()).toEqual([]);
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER)).toEqual([]);
    },
    STEP,
  );

  it("prints no warning that the plugin came from PATH, though it is on PATH: Pulumi.yaml names its directory", () => {
    expect(runs.map((r) => r.command)).toHaveLength(6);
    for (const run of runs) expect(run.output, run.command).not.toMatch(PATH_WARNING);
  });
});

describe.skipIf(lifecycleSkipped())("examples/go without its `plugins:` entry", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    const files = nativeExampleFiles("go", await nativePluginBin());
    const without = files["Pulumi.yaml"].replace(/^plugins:\n(?: {2,}.*\n)+/m, "");
    expect(without).not.toContain("plugins:");
    project = await createNativeProject({
      name: "cms-go",
      files: { ...files, "Pulumi.yaml": without },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "previews as well, the CLI warning that it uses the plugin it found on PATH (what docs/installation-configuration.md explains)",
    async () => {
      const preview = await project.preview();
      expect(preview.output).toMatch(/\+\s+cms:index:Cluster\s+cluster\s+create/);
      expect(preview.output).toContain(
        `warning: using pulumi-resource-cms from $PATH at ${path.join(await nativePluginBin(), "pulumi-resource-cms")}`,
      );
    },
    STEP,
  );
});

describe("the Go module instructions of docs/installation-configuration.md, typed in a new project beside a clone of this repository", () => {
  let root: string;
  beforeAll(() => {
    root = workDir("readme-go");
  });
  afterAll(() => fs.promises.rm(root, { recursive: true, force: true }));

  it(
    "make a module that builds the example's program against the clone's sdk/go, with the go.mod lines the page names",
    async () => {
      const readme = fs.readFileSync(path.join(REPO_ROOT, "docs", "installation-configuration.md"), "utf8");
      const [block, ...more] = codeBlocks(readme, ["bash"]).filter((b) => b.includes("go mod edit"));
      expect(more).toEqual([]);
      const clone = /^git clone (\S+) \.\.\/pulumi-cms\s*(#.*)?$/m;
      expect(block).toMatch(clone);
      // The clone is this checkout; everything else runs as written.
      fs.symlinkSync(REPO_ROOT, path.join(root, "pulumi-cms"), "dir");
      const dir = path.join(root, "clusters");
      fs.mkdirSync(dir);
      fs.copyFileSync(path.join(REPO_ROOT, "examples", "go", "main.go"), path.join(dir, "main.go"));
      await execFile("bash", ["-eu", "-c", block.replace(clone, "")], { cwd: dir, timeout: STEP });

      // The lines the page says the commands write, as go.mod holds them (a require in a block loses its keyword).
      const named = /`(require [^`]+)`\s+and\s+`(replace [^`]+)`/.exec(readme);
      expect(named, "the page names the require and replace lines").not.toBeNull();
      const lines = fs
        .readFileSync(path.join(dir, "go.mod"), "utf8")
        .split("\n")
        .map((l) => l.trim());
      expect(lines).toContain(named![1].replace(/^require /, ""));
      expect(lines).toContain(named![2]);
      const goMod = lines.join("\n");
      expect(goMod).toMatch(/^replace github\.com\/pulumi-cms\/pulumi-cms\/sdk\/go => \.\.\/pulumi-cms\/sdk\/go$/m);
      await execFile("go", ["build", "-o", path.join(root, "clusters-bin"), "."], { cwd: dir, timeout: STEP });
      expect(fs.statSync(path.join(root, "clusters-bin")).size).toBeGreaterThan(0);
    },
    STEP,
  );
});
