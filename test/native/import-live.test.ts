/**
 * Existing clusters into native stacks: `pulumi import` of `cms:index:Cluster`, and a stack moved
 * from the dynamic resource to the native one without recreating its cluster.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, type PulumiProject } from "../../scripts/lib/pulumi-driver.mjs";
import {
  CLUSTER_TYPE as DYNAMIC_TYPE,
  createProject,
  eventually,
  type LifecycleEmulator,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import { createNativeProject, NATIVE_CLUSTER, nativePluginBin } from "../support/native";

const STEP = 240_000;

describe("pulumi import cms:index:Cluster", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNativeProject({
      name: "native-import",
      files: { "Pulumi.yaml": "name: native-import\nruntime: yaml\n" },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "takes an existing cluster into the stack as docs/native.md types it; the resource it writes, moved under the program's resources:, previews with no changes (the file alone or appended whole does not), and once unprotected as the page says, destroy deletes the cluster",
    async () => {
      const created = await emu.api("POST", "/v1/clusters", { name: "legacy", control_planes: 1, workers: 2, node_size: "medium" });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await emu.waitForCluster(id, (c) => c?.status === "running");

      // The command of docs/native.md, with this cluster's id in place of its placeholder.
      const readme = fs.readFileSync(path.join(REPO_ROOT, "docs", "native.md"), "utf8");
      const line = readme.split("\n").find((l) => l.startsWith(`pulumi import ${NATIVE_CLUSTER} `));
      const args = (line ?? "").replace(/#.*$/, "").trim().split(/\s+/).slice(1);
      expect(args).toEqual(["import", NATIVE_CLUSTER, "legacy", "cls_0123456789abcdef"]);
      const generated = path.join(project.dir, "imported.yaml");
      const imported = await project.run([...args.slice(0, 3), id, "--yes", "--out", generated]);
      expect(imported.output).toMatch(/=\s+cms:index:Cluster\s+legacy\s+import/);
      const state = await project.exportStack();
      expect(state.resources.filter((r) => r.type === NATIVE_CLUSTER).map((r) => r.id)).toEqual([id]);
      expect(state.text).not.toContain(emu.token);

      // The generated resource, as the program: nothing to change.
      const program = fs.readFileSync(generated, "utf8");
      expect(program).toContain("workers: 2");
      // The resource's only option, as the page says.
      expect(program).toMatch(/^ +options:\n +protect: true\n/m);
      // As the page says: the file alone is not read, and appended whole it is a second `resources:`.
      const header = "name: native-import\nruntime: yaml\nresources:\n";
      expect(readme).toContain("move its resource (the `legacy:` entry) under your\nprogram's `resources:`");
      expect((await project.preview([], { allowFailure: true })).output).toMatch(/cannot be deleted\s+because it is protected/);
      fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), `${header}${program}`);
      expect((await project.preview([], { allowFailure: true })).output).toMatch(/mapping key "resources" already defined/);
      // Its entry under the program's resources:, as the page says.
      expect(program).toMatch(/^resources:\n {2}legacy:\n/);
      const entry = program.replace(/^resources:\n/, "");
      fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), `${header}${entry}`);
      await project.preview(["--expect-no-changes"]);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([id]);

      // Protected, as the page says: destroy refuses, until the line is gone and an up recorded that.
      const refused = await project.destroy([], { allowFailure: true });
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/protected/);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([id]);
      fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), `${header}${entry.replace(/^ +options:\n +protect: true\n/m, "")}`);
      const up = await project.up();
      expect(up.steps.filter((s) => s.kind === "outputs" && s.op !== "same")).toEqual([]);
      await project.destroy();
      await eventually(async () => (await emu.clusters()).length === 0, { timeoutMs: 30_000, what: "the imported cluster deleted" });
    },
    STEP,
  );

  it(
    "of an id that does not exist fails naming it, and records nothing",
    async () => {
      const result = await project.run(["import", NATIVE_CLUSTER, "ghost", "cls_0123456789abcdef", "--yes"], { allowFailure: true });
      expect(result.code).not.toBe(0);
      expect(result.output).toContain("cls_0123456789abcdef");
      // However often the engine prints the error, each print says it once (not the 404's own "not found" besides).
      expect(result.output).toContain("does not exist or is not visible to the token in use");
      expect(result.output).not.toContain("cls_0123456789abcdef not found");
      expect(result.output).not.toMatch(/reading 'toJavaScript'/);
      expect((await project.exportStack()).resources.filter((r) => r.urn.endsWith("::ghost"))).toEqual([]);
    },
    STEP,
  );
});

describe("a stack moved from the dynamic Cluster to the native one", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    const [bin, { binDir }] = await Promise.all([nativePluginBin(), findPulumi()]);
    project = await createProject({
      name: "moving",
      config: { ...emu.stackConfig(), "moving:name": "kept", "moving:workers": "2" },
      secretConfig: emu.secretConfig(),
      env: { PATH: [binDir, bin, process.env.PATH ?? ""].join(path.delimiter) },
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "keeps its cluster: state delete of the dynamic resource, then the native one with the import option",
    async () => {
      await project.up();
      const { id } = await project.outputs();
      const [dynamic] = (await project.exportStack()).resources.filter((r) => r.type === DYNAMIC_TYPE);

      // The steps docs/native.md gives.
      await project.run(["state", "delete", dynamic.urn, "--yes"]);
      const cluster = (extra: string) =>
        `name: moving\nruntime: yaml\nresources:\n  cluster:\n    type: ${NATIVE_CLUSTER}\n    properties:\n      name: kept\n      controlPlanes: 1\n      workers: 2\n      nodeSize: small\n${extra}outputs:\n  id: \${cluster.id}\n`;
      fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), cluster(`    options:\n      import: ${id}\n`));
      const up = await project.up();
      expect(up.steps.filter((s) => s.kind === "outputs" && s.type === NATIVE_CLUSTER).map((s) => s.op)).toEqual(["import"]);
      expect((await project.outputs()).id).toBe(id);

      fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), cluster(""));
      await project.preview(["--expect-no-changes"]);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([id]);

      await project.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );
});
