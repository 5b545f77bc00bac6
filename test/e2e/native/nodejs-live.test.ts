/**
 * The native plugin under a TypeScript program and the real CLI with its Node.js host: the
 * package installed from its tarball into the project, `pulumi-cms/native` (the SDK generated
 * from the plugin's schema) imported by the program, `pulumi-resource-cms` found through the
 * project's Pulumi.yaml (`node_modules/.bin`, as docs/installation-configuration.md says), nothing on PATH. One stack
 * through every step, starting on the dynamic `Cluster` and moved to the native one, ending on
 * a native one given every input as a secret.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../../../src/client/version";
import type { PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import {
  CLUSTER_TYPE as DYNAMIC_TYPE,
  type LifecycleEmulator,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import { codeBlocks } from "../../support/docs";
import {
  CLUSTER_INPUTS,
  clusterSteps,
  createNodeNativeProject,
  NATIVE_CLUSTER,
  outsideCluster,
  revealedCluster,
  secretBreaches,
  shown,
} from "../../support/native";

const STEP = 300_000;

/**
 * Driven by stack config: `face` dynamic (the package's default export) or native; the sizes;
 * `importId` (the import option); `updateTimeout` (customTimeouts.update); `outsideId`, a
 * cluster `pulumi import` took into the stack, declared as the import wrote it. The native
 * face's outputs include the five functions' answers. With `secretInputs`, the native Cluster
 * takes every input through `pulumi.secret`, its connection too (from config), and the outputs
 * are its own, every one of them.
 */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Cluster as DynamicCluster } from "pulumi-cms";
import * as cms from "pulumi-cms/native";

const config = new pulumi.Config();
const sizes = {
  name: config.get("name"),
  controlPlanes: (config.getNumber("controlPlanes") ?? 1) as 1 | 3,
  workers: config.getNumber("workers") ?? 1,
  nodeSize: "small" as const,
};

const secretInputs = config.getBoolean("secretInputs") ?? false;

/** Every input a secret; the values given as secret config, read as plain ones so that \`pulumi.secret\` alone marks them. */
function secretCluster(): cms.Cluster {
  return new cms.Cluster("cluster", {
    name: pulumi.secret(config.require("secretName")),
    controlPlanes: pulumi.secret(1),
    workers: pulumi.secret(sizes.workers),
    nodeSize: pulumi.secret("medium"),
    phase: pulumi.secret("onpremise"),
    infraId: pulumi.secret(config.require("secretInfraId")),
    connection: { endpoint: pulumi.secret(config.require("endpoint")), token: pulumi.secret(config.require("token")) },
  });
}

function nativeCluster(): cms.Cluster {
  if (secretInputs) return secretCluster();
  const updateTimeout = config.get("updateTimeout");
  const cluster = new cms.Cluster("cluster", sizes, {
    import: config.get("importId"),
    customTimeouts: updateTimeout ? { update: updateTimeout } : undefined,
  });
  if (config.get("outsideId")) {
    new cms.Cluster("outside", { name: "outside", controlPlanes: 1, workers: 2, nodeSize: "medium" });
  }
  return cluster;
}

const cluster =
  config.get("face") === "dynamic"
    ? new DynamicCluster("cluster", sizes, { retainOnDelete: config.getBoolean("retain") })
    : nativeCluster();

export const id = cluster.id;
export const name = cluster.name;
export const workers = cluster.workers;
export const kubeconfig = cluster.kubeconfig;

export const status = secretInputs ? cluster.status : undefined;
export const controlPlanes = secretInputs ? cluster.controlPlanes : undefined;
export const nodeSize = secretInputs ? cluster.nodeSize : undefined;
export const phase = secretInputs ? cluster.phase : undefined;
export const infraId = secretInputs ? cluster.infraId : undefined;
export const nodeCount = secretInputs ? cluster.nodeCount : undefined;

// The functions need the provider's configuration, which the secret inputs' stack does without.
const native = config.get("face") !== "dynamic" && !secretInputs;
const found = native ? cms.getClusterOutput({ id: cluster.id }) : undefined;
const nodes = native ? cms.getNodesOutput({ clusterId: cluster.id }) : undefined;
export const foundStatus = found?.status;
export const nodeTotal = nodes?.total;
export const firstNodeRole = nodes?.nodes.apply((n) => cms.getNodeOutput({ clusterId: n[0].clusterId, nodeId: n[0].id }).role);
export const listed = native ? cms.getClustersOutput({}).clusters.apply((cs) => cs.map((c) => c.id).sort()) : undefined;
export const fetchedKubeconfig = native ? cms.getKubeconfigOutput({ clusterId: cluster.id }).kubeconfig : undefined;
`;

type Counts = Record<string, number>;

describe("a TypeScript program on pulumi-cms/native", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  const counts = async () => (await emu.control.requestCounts()) as Counts;
  const posts = async () => (await counts())["POST /v1/clusters"] ?? 0;
  const deletes = async () => (await counts())["DELETE /v1/clusters/:cluster_id"] ?? 0;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    // The Pulumi.yaml for this face (docs/installation-configuration.md), as a user copies it (the project's name aside).
    const readme = fs.readFileSync(path.join(REPO_ROOT, "docs", "installation-configuration.md"), "utf8");
    const pulumiYaml = codeBlocks(readme, ["yaml"]).find((b) => b.includes("runtime: nodejs") && b.includes("path: node_modules/.bin"));
    if (!pulumiYaml)
      throw new Error(
        "docs/installation-configuration.md has no Pulumi.yaml for the native face (runtime: nodejs, path: node_modules/.bin)",
      );
    project = await createNodeNativeProject({
      name: "native-node",
      files: { "Pulumi.yaml": pulumiYaml.replace(/^name: native-clusters$/m, "name: native-node") },
      program: PROGRAM,
      config: { ...emu.stackConfig(), face: "dynamic" },
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "moves a stack's dynamic Cluster to the native one without recreating it: retainOnDelete, then the import option",
    async () => {
      const first = await project.up();
      // The project's package.json names index.js, as `npm init -y` writes it; Pulumi.yaml's main wins, quietly.
      expect(first.output).not.toMatch(/Could not find entry point|DEP0128/);
      const { id, name } = await project.outputs();
      expect((await project.exportStack()).resources.filter((r) => r.type === DYNAMIC_TYPE).map((r) => r.id)).toEqual([id]);

      // The steps of docs/native.md: keep the cluster when the dynamic resource leaves the stack ...
      await project.setConfig("retain", "true");
      await project.up();
      // ... then the native resource, with the name the cluster has, takes it over.
      const [postsBefore, deletesBefore] = [await posts(), await deletes()];
      await project.setConfigs({ face: "native", name, importId: id });
      const moved = await project.up();
      expect(clusterSteps(moved)).toEqual(["import"]);
      expect(moved.steps.filter((s) => s.kind === "outputs" && s.type === DYNAMIC_TYPE).map((s) => s.op)).toEqual(["delete"]);
      expect([await posts(), await deletes()]).toEqual([postsBefore, deletesBefore]);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([id]);
      const state = await project.exportStack();
      expect(state.resources.filter((r) => r.type === NATIVE_CLUSTER).map((r) => r.id)).toEqual([id]);
      expect(state.resources.filter((r) => r.type === DYNAMIC_TYPE)).toEqual([]);

      // The option is dropped afterwards: nothing to change.
      await project.removeConfig("importId");
      await project.preview(["--expect-no-changes"]);
    },
    STEP,
  );

  it(
    "refuses cms:token in plain text with the dynamic face's message and its fix, before any call",
    async () => {
      const message = "cms:token is set in the stack configuration in plain text";
      const apiCalls = async () => Object.entries(await counts()).filter(([route]) => route.includes("/v1/"));
      const before = await apiCalls();
      await project.setConfig("cms:token", emu.token);
      for (const run of [await project.preview([], { allowFailure: true }), await project.up([], { allowFailure: true })]) {
        expect(run.code, run.output).not.toBe(0);
        expect(run.output).toContain(message);
        expect(run.output).toContain("`pulumi config set --secret cms:token <token>`");
        expect(run.output).toContain(`Pulumi.${project.stack}.yaml holds the token unencrypted`);
        expect(run.output).not.toContain(emu.token);
      }
      expect(await apiCalls()).toEqual(before);
      expect((await project.exportStack()).text).not.toContain(emu.token);
      // The fix the message names.
      await project.setConfigs({}, emu.secretConfig());
      await project.preview(["--expect-no-changes"]);
    },
    STEP,
  );

  it(
    "after the move, a replacing change made with the name dropped creates the replacement before it deletes the original",
    async () => {
      const { id: moved, name } = await project.outputs();
      // The moved cluster's name is pinned: a replacement keeping it would delete first (two
      // clusters must not share a name). The way of docs/native.md: drop `name` in the same up.
      await project.removeConfig("name");
      await project.setConfig("controlPlanes", 3);
      const replaced = await project.up();
      expect(clusterSteps(replaced)).toEqual(["create-replacement", "replace", "delete-replaced"]);
      const after = await project.outputs();
      expect(after.id).not.toBe(moved);
      expect(after.name).not.toBe(name);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([after.id]);
      // Back to the sizes the next test expects, create-first again (the name is an auto-name now).
      await project.setConfig("controlPlanes", 1);
      expect(clusterSteps(await project.up())).toEqual(["create-replacement", "replace", "delete-replaced"]);
      // The program's getClusters ran before that replacement: one more up lists what is there now.
      expect(clusterSteps(await project.up())).toEqual(["same"]);
    },
    STEP,
  );

  it(
    "reads the cluster back through the five functions, keeps the token and kubeconfig secret",
    async () => {
      const out = await project.outputs({ showSecrets: true });
      expect(out.foundStatus).toBe("running");
      expect(out.nodeTotal).toBe(2);
      expect(out.firstNodeRole).toMatch(/^(controlplane|worker)$/);
      expect(out.listed).toEqual([out.id]);
      expect(out.fetchedKubeconfig).toBe(out.kubeconfig);
      const shown = await project.outputs();
      expect(shown.kubeconfig).toBe("[secret]");
      expect(shown.fetchedKubeconfig).toBe("[secret]");
      const { text } = await project.exportStack();
      expect(text).not.toContain(emu.token);
      expect(text).not.toContain(out.kubeconfig);
    },
    STEP,
  );

  it(
    "scales in place, records a console change on refresh and puts it back",
    async () => {
      const { id } = await project.outputs();
      await project.setConfig("workers", "2");
      expect(clusterSteps(await project.up())).toEqual(["update"]);
      expect((await project.outputs()).id).toBe(id);
      expect((await emu.clusters()).find((c) => c.id === id)?.workers).toBe(2);

      await emu.control.scale(id, 3);
      await emu.waitForCluster(id, (c) => c?.status === "running" && c.workers === 3);
      await project.refresh();
      const refreshed = (await project.exportStack()).resources.find((r) => r.type === NATIVE_CLUSTER);
      expect(refreshed?.outputs?.workers).toBe(3);
      expect(clusterSteps(await project.up())).toEqual(["update"]);
      expect((await emu.clusters()).find((c) => c.id === id)?.workers).toBe(2);
    },
    STEP,
  );

  it(
    "ends a slow scale at the engine's customTimeouts.update, naming it, and keeps the cluster",
    async () => {
      const { id } = await project.outputs();
      await emu.control.setTimings({ scaleSeconds: 20 });
      await project.setConfigs({ updateTimeout: "3s", workers: "3" });
      const slow = await project.up([], { allowFailure: true });
      expect(slow.code).not.toBe(0);
      expect(slow.output).toContain(`timed out after 3s waiting for cluster ${id} to become running`);
      expect(slow.durationMs).toBeLessThan(20_000 + 60_000);
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER).map((r) => r.id)).toEqual([id]);

      // The rest of the scale is no part of the check: skipped, not waited out.
      emu.skipAhead(20_000);
      await emu.waitForCluster(id, (c) => c?.status === "running", 60_000);
      await emu.control.setTimings({ scaleSeconds: 0.5 });
      await project.removeConfig("updateTimeout");
      const postsBefore = await posts();
      await project.up();
      expect(await posts()).toBe(postsBefore);
      expect((await emu.clusters()).map((c) => [c.id, c.workers])).toEqual([[id, 3]]);
    },
    STEP,
  );

  it(
    "replaces on controlPlanes: a new cluster, the old one deleted",
    async () => {
      const { id } = await project.outputs();
      await project.setConfig("controlPlanes", "3");
      const up = await project.up();
      expect(clusterSteps(up)).toEqual(expect.arrayContaining(["create-replacement", "delete-replaced"]));
      const replaced = await project.outputs();
      expect(replaced.id).not.toBe(id);
      // The CLI keeps the replacement's last line on the original's delete row until the delete's
      // own comes: every row of the delete says what happens to the original, and none twice.
      const deleting = up.output.split("\n").filter((l) => /deleting original|deleted original/.test(l));
      expect(deleting.length, up.output).toBeGreaterThan(1);
      for (const row of deleting) {
        expect(row, up.output).toMatch(new RegExp(`the original is deleted next|cluster ${id} to be gone|cluster ${id} is gone`));
      }
      expect(new Set(deleting).size, up.output).toBe(deleting.length);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([replaced.id]);
    },
    STEP,
  );

  it(
    "takes a cluster made outside Pulumi with pulumi import, then destroys the stack's clusters",
    async () => {
      const outside = await outsideCluster(emu, "outside");
      const postsBefore = await posts();

      const imported = await project.run([
        "import",
        NATIVE_CLUSTER,
        "outside",
        outside,
        "--yes",
        "--protect=false",
        "--generate-code=false",
      ]);
      expect(imported.output).toMatch(/=\s+cms:index:Cluster\s+outside\s+import/);
      await project.setConfig("outsideId", outside);
      await project.preview(["--expect-no-changes"]);
      expect(await posts()).toBe(postsBefore);

      await project.destroy();
      expect(await emu.clusters()).toEqual([]);
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER)).toEqual([]);
    },
    STEP,
  );

  it(
    "given every input through pulumi.secret, shows none of them in a preview, an up, a scale or a refresh, stores each encrypted, and outputs each as [secret]",
    async () => {
      const name = `secret-name-${randomBytes(4).toString("hex")}`;
      const infraId = `secret-infra-${randomBytes(4).toString("hex")}`;
      // The values a search can tell apart (numbers and sizes are checked in the state's shape).
      const plain = [name, infraId, emu.url, emu.token, "onpremise"];
      // No provider configuration: the cluster's own connection, given as secrets, is the only way to the service.
      for (const key of ["cms:endpoint", "cms:token", "outsideId", "name", "controlPlanes"]) await project.removeConfig(key);
      await project.setConfigs(
        { face: "native", secretInputs: "true", workers: "1" },
        { secretName: name, secretInfraId: infraId, endpoint: emu.url, token: emu.token },
      );

      const runs = [await project.preview(), await project.up()];
      expect(await secretBreaches(project, plain)).toEqual([]);
      const out = await project.outputs();
      for (const k of [...CLUSTER_INPUTS, "nodeCount", "kubeconfig"]) expect(out[k], k).toBe("[secret]");
      expect(out.status).toBe("running");
      // The values themselves reached the service.
      expect(await emu.clusters()).toMatchObject([
        { id: out.id, name, infra_id: infraId, phase: "onpremise", node_size: "medium", workers: 1 },
      ]);

      await project.setConfig("workers", 2);
      const diff = await project.preview(["--diff"]);
      expect(diff.output).toMatch(/workers/);
      const scale = await project.up();
      runs.push(diff, scale);
      expect(clusterSteps(scale)).toEqual(["update"]);
      expect((await emu.clusters()).map((c) => c.workers)).toEqual([2]);
      expect(await secretBreaches(project, plain)).toEqual([]);

      // A scale in the console, seen by a refresh.
      await emu.control.scale(out.id, 3);
      await emu.waitForCluster(out.id, (c) => c?.status === "running" && c.workers === 3);
      runs.push(await project.refresh());
      expect(await secretBreaches(project, plain)).toEqual([]);
      const state = await revealedCluster(project);
      expect([state.outputs.workers, state.inputs.workers, state.outputs.nodeCount]).toEqual([3, 3, 4]);
      for (const run of runs) expect(shown(run.output, plain), run.command).toEqual([]);

      await project.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );

  it(
    "without the plugins entry of Pulumi.yaml (and nothing on PATH), fails naming the plugin it cannot find",
    async () => {
      await project.setConfig("face", "native");
      const yaml = path.join(project.dir, "Pulumi.yaml");
      fs.writeFileSync(yaml, fs.readFileSync(yaml, "utf8").replace(/^plugins:[\s\S]*$/m, ""));
      const preview = await project.preview([], { allowFailure: true });
      expect(preview.code).not.toBe(0);
      expect(preview.output).toContain(
        `no resource plugin 'pulumi-resource-cms' found in the workspace at version v${PACKAGE_VERSION} or on your $PATH`,
      );
    },
    STEP,
  );
});
