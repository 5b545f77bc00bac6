/**
 * The main lifecycle, in the order providers' integration tests use, with the real Pulumi CLI
 * against the real emulator (in this process) and a temporary local file backend:
 * preview/up, no-change preview and refresh, in-place update, replacement (delete first, as the
 * name is explicit), drift from the console and its correction, out-of-band delete, secrets in
 * state and output, destroy.
 *
 * The stack gets cms:endpoint / cms:token from its configuration (token as a secret) while the
 * CLI's environment carries a WRONG CMS_ENDPOINT / CMS_TOKEN: everything below only works if the
 * stack configuration reaches the provider and wins over the environment.
 *
 * The steps share one stack and run in order; a failed step makes the later ones fail too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  createProject,
  filesContaining,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  type RunResult,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;
const CLUSTER_NAME = "lc-main";
const PATCH = "PATCH /v1/clusters/:cluster_id";
const POST = "POST /v1/clusters";
const DELETE = "DELETE /v1/clusters/:cluster_id";

describe.skipIf(lifecycleSkipped())("lifecycle: real pulumi CLI against the emulator", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  /** Every CLI result of this file, checked for secrets at the end. */
  const results: RunResult[] = [];
  const track = <T extends RunResult>(r: T): T => {
    results.push(r);
    return r;
  };
  let clusterId = "";

  beforeAll(async () => {
    await findPulumi(); // fails with instructions when there is no CLI
    // 3 s of provisioning: the early poll sees nodes still coming up, so a progress line shows.
    emu = await startLifecycleEmulator({ provisionSeconds: 3 });
    project = await createProject({
      name: "cms-lc-main",
      config: { ...emu.stackConfig(), name: CLUSTER_NAME, controlPlanes: 1, workers: 2, nodeSize: "small" },
      secretConfig: emu.secretConfig(),
      // Wrong on purpose: the stack configuration must take precedence.
      env: { CMS_ENDPOINT: "http://127.0.0.1:9", CMS_TOKEN: "cms_wrong_token_from_the_environment" },
    });
  }, STEP_TIMEOUT);

  afterAll(async () => {
    // Leave nothing behind even when a step failed: destroy what the stack still has.
    if (project && clusterId) await project.destroy([], { allowFailure: true });
    await project?.dispose();
    await emu?.close();
  }, STEP_TIMEOUT);

  it(
    "1. preview shows a create and touches nothing; up creates a running cluster with a kubeconfig",
    async () => {
      const preview = track(await project.preview());
      expect(preview.output).toMatch(/\+\s+pulumi-nodejs:dynamic\/cms:Cluster\s+cluster\s+create/);
      expect(await emu.clusters()).toHaveLength(0);

      const up = track(await project.up());
      // Progress lines of the provider, shown next to the resource by the CLI.
      expect(up.output).toMatch(/provisioning: \d+\/3 nodes ready/);
      expect(up.output).toMatch(/Cluster\s+cluster\s+created/);

      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      const [c] = clusters;
      // The finished resource's row ends with the outcome, not a stale "provisioning: 0/3 nodes ready".
      const createdRow = up.output.split("\n").find((l) => /Cluster\s+cluster\s+created \(/.test(l));
      expect(createdRow).toMatch(new RegExp(`created \\(\\d+s\\)\\s+running: cluster ${c.id} ready\\s*$`));
      expect(c).toMatchObject({ name: CLUSTER_NAME, status: "running", control_planes: 1, workers: 2, node_size: "small" });
      clusterId = c.id;

      const outputs = await project.outputs();
      expect(outputs).toMatchObject({
        id: clusterId,
        name: CLUSTER_NAME,
        status: "running",
        workers: 2,
        nodeCount: 3,
        kubeconfig: "[secret]",
      });
      const revealed = await project.outputs({ showSecrets: true });
      const kubeconfig = await emu.api("GET", `/v1/clusters/${clusterId}/kubeconfig`);
      expect(kubeconfig.status).toBe(200);
      expect(revealed.kubeconfig).toBe(kubeconfig.text);
      // Without --kubernetes, no API server: the emulator's stand-in, which says so.
      expect(revealed.kubeconfig).toContain(`server: ${emu.url}/_no-kubernetes/${c.id}`);
    },
    STEP_TIMEOUT,
  );

  it(
    "2. preview and refresh right after up show no changes",
    async () => {
      track(await project.preview(["--expect-no-changes"]));
      const refresh = track(await project.refresh(["--expect-no-changes"]));
      expect(refresh.output).toMatch(/Resources:\s+2 unchanged/);
      // And the refresh did read the cluster from the service.
      expect((await emu.control.requestCounts())["GET /v1/clusters/:cluster_id"]).toBeGreaterThan(0);
    },
    STEP_TIMEOUT,
  );

  it(
    "3. changing workers and node size updates in place with exactly one PATCH",
    async () => {
      await project.setConfig("workers", 3);
      await project.setConfig("nodeSize", "medium");
      await emu.control.resetRequestCounts();
      const up = track(await project.up());

      const ops = up.steps.filter((s) => s.type === CLUSTER_TYPE).map((s) => s.op);
      expect(new Set(ops)).toEqual(new Set(["update"]));
      const counts = await emu.control.requestCounts();
      expect(counts[PATCH]).toBe(1);
      expect(counts[POST]).toBeUndefined();
      expect(counts[DELETE]).toBeUndefined();

      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ id: clusterId, status: "running", workers: 3, node_size: "medium" });
      expect(await project.outputs()).toMatchObject({ id: clusterId, workers: 3, nodeSize: "medium", nodeCount: 4 });
    },
    STEP_TIMEOUT,
  );

  it(
    "4. changing control planes replaces the cluster, deleting the old one first (explicit name)",
    async () => {
      await project.setConfig("controlPlanes", 3);
      await emu.control.resetRequestCounts();
      const up = track(await project.up());

      const steps = up.steps.filter((s) => s.type === CLUSTER_TYPE);
      const deleteDone = steps.find((s) => s.op === "delete-replaced" && s.kind === "outputs");
      const createStart = steps.find((s) => s.op === "create-replacement" && s.kind === "pre");
      expect(deleteDone, JSON.stringify(steps)).toBeDefined();
      expect(createStart, JSON.stringify(steps)).toBeDefined();
      // Delete-before-replace: the old cluster was gone before the new one was requested.
      expect(deleteDone!.sequence).toBeLessThan(createStart!.sequence);
      // The delete's progress names the cluster it waits for (the old one), after the CLI's own
      // `deleting original (Ns)`, and repeats neither its word nor its time.
      expect(up.output).toContain(`waiting for cluster ${clusterId} to be gone`);
      // Its last line stays on the row through the replacement's first steps: it says what comes.
      const rows = up.output.split("\n");
      const creating = rows.findIndex((l) => /creating replacement/.test(l));
      const afterDelete = rows.slice(0, creating + 1).filter((l) => /replacing|replaced|creating replacement/.test(l));
      expect(afterDelete.length, up.output).toBeGreaterThan(1);
      for (const row of afterDelete)
        expect(row, up.output).toContain(`deleted: cluster ${clusterId} is gone; the replacement is created next`);
      expect(up.output).not.toMatch(/deleting[^\n]*\(\d+s\)\s+deleting/);
      expect(up.output).not.toMatch(/\(\d+s\)[^\n]*\(\d+s\)/);

      const counts = await emu.control.requestCounts();
      expect(counts[DELETE]).toBe(1);
      expect(counts[POST]).toBe(1);
      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ name: CLUSTER_NAME, status: "running", control_planes: 3, workers: 3, node_size: "medium" });
      expect(clusters[0].id).not.toBe(clusterId);
      expect((await emu.api("GET", `/v1/clusters/${clusterId}`)).status).toBe(404);
      clusterId = clusters[0].id;
      expect(await project.outputs()).toMatchObject({ id: clusterId, controlPlanes: 3, nodeCount: 6 });
    },
    STEP_TIMEOUT,
  );

  it(
    "5. an out-of-band scale is seen by refresh and corrected by the next up",
    async () => {
      await emu.control.scale(clusterId, 5);
      await emu.waitForCluster(clusterId, (c) => c?.status === "running" && c.workers === 5);

      const refresh = track(await project.refresh());
      expect(refresh.output).toMatch(/Resources:\s+~ 1 updated/);
      const [state] = await project.clusterResources();
      expect(state.outputs.workers).toBe(5);
      expect(state.inputs.workers).toBe(5);

      await emu.control.resetRequestCounts();
      const up = track(await project.up());
      expect(up.steps.filter((s) => s.type === CLUSTER_TYPE).map((s) => s.op)).toContain("update");
      expect((await emu.control.requestCounts())[PATCH]).toBe(1);
      const [c] = await emu.clusters();
      expect(c).toMatchObject({ id: clusterId, status: "running", workers: 3 });
      expect((await project.clusterResources())[0].outputs.workers).toBe(3);
    },
    STEP_TIMEOUT,
  );

  it(
    "6. an out-of-band delete is dropped from the state by refresh; up creates the cluster again",
    async () => {
      await emu.control.deleteCluster(clusterId);
      await emu.waitForCluster(clusterId, (c) => c === undefined);

      const refresh = track(await project.refresh());
      expect(refresh.output).toMatch(/Resources:\s+- 1 deleted/);
      expect(await project.clusterResources()).toHaveLength(0);

      const up = track(await project.up());
      expect(up.output).toMatch(/Cluster\s+cluster\s+created/);
      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ name: CLUSTER_NAME, status: "running", control_planes: 3, workers: 3 });
      clusterId = clusters[0].id;
    },
    STEP_TIMEOUT,
  );

  it(
    "10. neither the token nor the kubeconfig appears in plaintext (export, outputs, CLI output, files)",
    async () => {
      const kc = await emu.api("GET", `/v1/clusters/${clusterId}/kubeconfig`);
      const kubeconfig = kc.text;
      const credential = /token:\s*(\S+)/.exec(kubeconfig)?.[1];
      expect(credential).toMatch(/^kc_/);
      const needles = { token: emu.token, kubeconfig, credential: credential! };

      const exported = await project.exportStack();
      const outputsText = (await project.run(["stack", "output", "--json"])).stdout;
      const texts: Record<string, string> = {
        "pulumi stack export": exported.text,
        "pulumi stack output --json": outputsText,
      };
      for (const r of results) texts[`${r.command} (output)`] = r.output;
      for (const [where, text] of Object.entries(texts)) {
        for (const [what, needle] of Object.entries(needles)) {
          expect(text.includes(needle), `${what} found in ${where}`).toBe(false);
        }
      }

      // The state keeps the kubeconfig as a secret, and the provider's serialized code and inputs
      // hold no token (the token comes from the stack configuration at run time).
      const [res] = exported.resources.filter((r) => r.type === CLUSTER_TYPE);
      expect(res.outputs.kubeconfig).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
      expect(typeof res.outputs.__provider).toBe("string");
      const stackOutputs = exported.resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs;
      expect(stackOutputs.kubeconfig).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });

      // Nothing on disk either: backend (checkpoints, backups, history), PULUMI_HOME, project.
      expect(await filesContaining(project.root, Object.values(needles))).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "11. destroy leaves zero clusters in the emulator",
    async () => {
      await emu.control.resetRequestCounts();
      const destroy = track(await project.destroy());
      expect(destroy.output).toMatch(/Cluster\s+cluster\s+deleted/);
      expect(await emu.clusters()).toEqual([]);
      expect((await emu.control.requestCounts())[DELETE]).toBe(1);
      expect(await project.clusterResources()).toHaveLength(0);
      clusterId = "";
    },
    STEP_TIMEOUT,
  );
});
