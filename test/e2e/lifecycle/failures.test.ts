/**
 * Partial failures with the real Pulumi CLI against the emulator:
 *
 * - a create that ends in `error`: the cluster is kept in the stack as an init error, and the
 *   next `up` recovers by REPLACING it (a cluster in `error` never becomes running again; see
 *   docs/cluster.md). With an explicit name the broken cluster is deleted first; auto-named, the
 *   new one is created first and the broken one deleted after. Either way: one running cluster,
 *   no orphan, no duplicate.
 * - a 429 storm and a burst of 5xx during `up`: the update completes, with exactly one cluster.
 * - customTimeouts: a tiny create timeout against slow provisioning is an init error that keeps
 *   the cluster; the next `up` (timeout removed) waits for that same cluster instead of creating
 *   another one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  createProject,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  teardown,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;
const POST = "POST /v1/clusters";
const DELETE = "DELETE /v1/clusters/:cluster_id";
const GET = "GET /v1/clusters/:cluster_id";

describe.skipIf(lifecycleSkipped())("lifecycle failures: real pulumi CLI against the emulator", () => {
  let emu: LifecycleEmulator;
  let named: PulumiProject;
  let auto: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    const common = { config: { ...emu.stackConfig(), workers: 2, nodeSize: "small" }, secretConfig: emu.secretConfig() };
    named = await createProject({ ...common, name: "cms-lc-failures", config: { ...common.config, name: "lc-fail" } });
    auto = await createProject({ ...common, name: "cms-lc-failures-auto" });
  }, STEP_TIMEOUT);

  afterAll(() => teardown([named, auto], emu), STEP_TIMEOUT);

  it(
    "8a. create ends in error: kept in state; the next up replaces it, deleting the broken cluster first (explicit name)",
    async () => {
      await emu.control.failNext("create");
      const failed = await named.up([], { allowFailure: true });
      expect(failed.code).not.toBe(0);
      expect(failed.output).toMatch(/status "error"/);
      expect(failed.output).toMatch(/next `pulumi up` will replace it/);
      expect(failed.output).not.toContain(emu.token);

      const [broken] = await emu.clusters();
      expect(broken).toMatchObject({ name: "lc-fail", status: "error" });
      const [res] = await named.clusterResources();
      expect(res.id).toBe(broken.id);
      expect(res.initErrors?.length).toBeGreaterThan(0);
      expect(res.outputs.status).toBe("error");

      // Preview says what will happen.
      const preview = await named.preview();
      expect(preview.output).toMatch(/\+-\s+pulumi-nodejs:dynamic\/cms:Cluster\s+cluster\s+replace/);

      await emu.control.resetRequestCounts();
      const up = await named.up();
      const steps = up.steps.filter((s) => s.type === CLUSTER_TYPE);
      const deleted = steps.find((s) => s.op === "delete-replaced" && s.kind === "outputs");
      const created = steps.find((s) => s.op === "create-replacement" && s.kind === "pre");
      expect(deleted && created && deleted.sequence < created.sequence, JSON.stringify(steps.map((s) => [s.op, s.kind]))).toBe(true);

      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ name: "lc-fail", status: "running" });
      expect(clusters[0].id).not.toBe(broken.id);
      const counts = await emu.control.requestCounts();
      expect(counts[POST]).toBe(1);
      expect(counts[DELETE]).toBe(1);
      const [after] = await named.clusterResources();
      expect(after.id).toBe(clusters[0].id);
      expect(after.initErrors ?? []).toEqual([]);
      expect(await named.outputs()).toMatchObject({ id: clusters[0].id, status: "running" });

      await named.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "8b. create ends in error, auto-named: the next up creates the replacement, then deletes the broken one",
    async () => {
      await emu.control.failNext("create");
      const failed = await auto.up([], { allowFailure: true });
      expect(failed.code).not.toBe(0);
      const [broken] = await emu.clusters();
      expect(broken.status).toBe("error");
      expect((await auto.clusterResources())[0].id).toBe(broken.id);

      const up = await auto.up();
      const steps = up.steps.filter((s) => s.type === CLUSTER_TYPE);
      const created = steps.find((s) => s.op === "create-replacement" && s.kind === "outputs");
      const deleted = steps.find((s) => s.op === "delete-replaced" && s.kind === "pre");
      expect(created && deleted && created.sequence < deleted.sequence, JSON.stringify(steps.map((s) => [s.op, s.kind]))).toBe(true);

      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0].status).toBe("running");
      expect(clusters[0].id).not.toBe(broken.id);
      expect(clusters[0].name).toMatch(/^cluster-/);
      expect((await auto.clusterResources())[0].id).toBe(clusters[0].id);

      await auto.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "9. a 429 storm and a burst of 5xx during up: the update completes with one cluster",
    async () => {
      await emu.control.resetRequestCounts();
      // The storm hits the status polls; the 5xx bursts hit the create (whose reply the client must
      // then reconcile: a 502 does not say whether the POST took effect) and the kubeconfig download.
      await emu.control.injectFault({
        kind: "rate_limit",
        method: "GET",
        path: "/v1/clusters/:cluster_id",
        count: 6,
        retryAfterSeconds: 1,
      });
      await emu.control.injectFault({ kind: "status", status: 502, method: "POST", path: "/v1/clusters", count: 2 });
      await emu.control.injectFault({ kind: "status", status: 500, method: "GET", path: "/v1/clusters/:cluster_id/kubeconfig", count: 2 });

      const up = await named.up();
      expect(up.output).toMatch(/Cluster\s+cluster\s+created/);

      // Every injected failure was served during that up (none left over), and it still made one cluster.
      const control = emu.control as typeof emu.control & { faults(): Promise<unknown[]> };
      expect(await control.faults()).toEqual([]);
      const counts = await emu.control.requestCounts();
      expect(counts[POST]).toBeGreaterThanOrEqual(3);
      expect(counts[GET]).toBeGreaterThanOrEqual(7);
      expect(counts["GET /v1/clusters/:cluster_id/kubeconfig"]).toBeGreaterThanOrEqual(3);
      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ name: "lc-fail", status: "running" });
      expect(await named.outputs()).toMatchObject({ id: clusters[0].id, status: "running", kubeconfig: "[secret]" });

      await named.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "customTimeouts: a 2s create timeout against 12s provisioning is an init error; the next up waits for the same cluster",
    async () => {
      await emu.control.setTimings({ provisionSeconds: 12 });
      try {
        await named.setConfig("createTimeout", "2s");
        const started = Date.now();
        const failed = await named.up([], { allowFailure: true });
        expect(failed.code).not.toBe(0);
        expect(failed.output).toMatch(/timed out after 2s waiting for cluster cls_\w+/);
        expect(failed.output).not.toContain(emu.token);
        const [slow] = await emu.clusters();
        expect(slow.status).toBe("provisioning"); // the create gave up well before the cluster was ready
        expect(Date.now() - started).toBeLessThan(60_000);
        const [res] = await named.clusterResources();
        expect(res.id).toBe(slow.id);
        expect(res.initErrors?.length).toBeGreaterThan(0);

        await named.removeConfig("createTimeout");
        await emu.control.resetRequestCounts();
        const up = await named.up();
        expect(up.output).toMatch(/Cluster\s+cluster\s+updated/);
        const clusters = await emu.clusters();
        expect(clusters).toHaveLength(1);
        expect(clusters[0]).toMatchObject({ id: slow.id, status: "running" });
        expect((await emu.control.requestCounts())[POST]).toBeUndefined();
        const [after] = await named.clusterResources();
        expect(after.id).toBe(slow.id);
        expect(after.initErrors ?? []).toEqual([]);
        expect(after.outputs.status).toBe("running");
      } finally {
        await emu.control.setTimings({ provisionSeconds: 1 });
      }
      await named.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});
