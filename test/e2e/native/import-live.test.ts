/**
 * Existing clusters into native stacks: `pulumi import` of `cms:index:Cluster` in a YAML and in a
 * TypeScript project, and a stack moved from the dynamic resource to the native one without
 * recreating its cluster.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, type PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import {
  CLUSTER_TYPE as DYNAMIC_TYPE,
  createProject,
  eventually,
  type LifecycleEmulator,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import { codeBlocks } from "../../support/docs";
import { createNativeProject, createNodeNativeProject, NATIVE_CLUSTER, nativePluginBin, outsideCluster } from "../../support/native";

const execFile = promisify(execFileCb);
const STEP = 240_000;
/** A run's first scripts/gen-sdk builds the generator from Go modules (as sdk-generated.test.ts's does): minutes, cold. */
const GENERATOR_STEP = 900_000;
/** The page that says how to import a cluster. */
const NATIVE_DOC = fs.readFileSync(path.join(REPO_ROOT, "docs", "native.md"), "utf8");

/** The arguments of docs/native.md's `pulumi import cms:index:Cluster ...` line that `pick` chooses (its comment dropped). */
function docImport(pick: (line: string) => boolean): string[] {
  const line = NATIVE_DOC.split("\n").find((l) => l.startsWith(`pulumi import ${NATIVE_CLUSTER} `) && pick(l));
  return (line ?? "").replace(/#.*$/, "").trim().split(/\s+/).slice(1);
}

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
      const id = await outsideCluster(emu, "legacy");

      // The command of docs/native.md, with this cluster's id in place of its placeholder.
      const args = docImport((l) => !l.includes("--generate-code"));
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
      expect(NATIVE_DOC).toContain("move its resource (the `legacy:` entry) under your\nprogram's `resources:`");
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
      // The engine prints it four times, as docs/troubleshooting.md says (under the Cluster and under
      // the Stack, in the rows and the diagnostics); each print says the id once, with what to check.
      const prints = result.output.split("\n").filter((l) => l.includes("does not exist or is not visible to the token in use"));
      expect(prints, result.output).toHaveLength(4);
      for (const line of prints) {
        expect(line.split("cls_0123456789abcdef").length - 1, line).toBe(1);
        expect(line).toContain("(GET answered 404 not_found): check the id, and that the token's scope covers it");
        expect(line).not.toMatch(/not found/);
      }
      expect(result.output).not.toMatch(/reading 'toJavaScript'/);
      expect((await project.exportStack()).resources.filter((r) => r.urn.endsWith("::ghost"))).toEqual([]);
    },
    STEP,
  );
});

describe("pulumi import cms:index:Cluster in a TypeScript project", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNodeNativeProject({
      name: "native-import-ts",
      files: {},
      program: "export {};\n",
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "with this repository's CLI exits 1 without --generate-code=false and 0 with it, as docs/native.md says; the program Pulumi's Node.js generator writes for the import is the page's, imports pulumi-cms/native, and previews with no changes",
    async () => {
      const id = await outsideCluster(emu, "legacy");

      // The page's command for this CLI, with this cluster's id in place of its placeholder.
      const args = docImport((l) => l.includes("--generate-code=false"));
      expect(args).toEqual(["import", NATIVE_CLUSTER, "legacy", "cls_0123456789abcdef", "--generate-code=false"]);
      args[3] = id;

      // Without the flag: recorded, then the host's missing GenerateProgram.
      const withoutFlag = await project.run([...args.slice(0, 4), "--yes"], { allowFailure: true });
      expect(withoutFlag.code).toBe(1);
      expect(withoutFlag.output).toContain("error: method GenerateProgram not implemented");
      const [recorded] = (await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER);
      expect(recorded.id).toBe(id);
      // Out of the state again (protected, hence --force), for the import with the flag.
      await project.run(["state", "delete", recorded.urn, "--force", "--yes"]);

      const imported = await project.run([...args, "--yes"]);
      expect(imported.code).toBe(0);
      expect(imported.output).toMatch(/=\s+cms:index:Cluster\s+legacy\s+import/);

      // What a current CLI's Node.js host prints for this import: Pulumi's importer and program
      // generator (scripts/gen-sdk --program), on the schema the tarball's plugin serves and the
      // stack as the import left it.
      const schema = path.join(project.dir, "..", "schema.json");
      const state = path.join(project.dir, "..", "state.json");
      const plugin = path.join(project.dir, "node_modules", ".bin", "pulumi-resource-cms");
      fs.writeFileSync(schema, (await project.run(["package", "get-schema", plugin])).stdout);
      fs.writeFileSync(state, (await project.run(["stack", "export", "--show-secrets", "--stack", project.stack])).stdout);
      const { stdout: program } = await execFile(
        path.join(REPO_ROOT, "scripts/gen-sdk"),
        ["--program", "nodejs", schema, state, NATIVE_CLUSTER, "legacy"],
        { cwd: REPO_ROOT, timeout: GENERATOR_STEP },
      );
      expect(program).toMatch(/^import \* as cms from "pulumi-cms\/native";$/m);
      expect(program).toMatch(/^const legacy = new cms\.Cluster\("legacy", \{$/m);
      expect(codeBlocks(NATIVE_DOC, ["text"]).filter((b) => b.includes("new cms.Cluster("))).toEqual([program]);

      fs.writeFileSync(path.join(project.dir, "index.ts"), program);
      await project.preview(["--expect-no-changes"]);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([id]);
    },
    GENERATOR_STEP,
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
