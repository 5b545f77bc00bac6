/**
 * What a drift gate costs against the rate limit, with the real CLI: one read pass over N
 * clusters takes the cluster objects from shared list pages and fetches each kubeconfig once, so
 * it costs at most N + ceil(N/100) + 2 calls (issue #20). Counted by the emulator, per route.
 * Drift made in the console is still caught while reads are shared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;
const N = 25;
/** The budget of one read pass over N clusters (account of fewer than 100 clusters: one page). */
const PASS = N + Math.ceil(N / 100) + 2;

const FLEET_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");
const config = new pulumi.Config();
const count = config.requireNumber("count");
for (let i = 0; i < count; i++) {
  const c = new cms.Cluster("c" + i, { controlPlanes: 1, workers: 1, nodeSize: "small" });
  exports["workers" + i] = c.workers;
}
`;

describe.skipIf(lifecycleSkipped())(`a read pass over ${N} clusters is shared (≤ ${PASS} calls)`, () => {
  let emu: LifecycleEmulator;
  let p: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    p = await createProject({
      name: "cms-refresh-cost",
      program: FLEET_PROGRAM,
      config: { ...emu.stackConfig(), count: N },
      secretConfig: emu.secretConfig(),
    });
    await p.up();
  }, STEP_TIMEOUT);
  afterAll(() => teardown(p ? [p] : [], emu), STEP_TIMEOUT);

  /** Calls per route made by `run`, and their total. */
  async function calls(run: () => Promise<unknown>): Promise<{ total: number; byRoute: Record<string, number> }> {
    await emu.control.resetRequestCounts();
    await run();
    const byRoute = await emu.control.requestCounts();
    return { total: Object.values(byRoute).reduce((a, b) => a + b, 0), byRoute };
  }

  it(
    "`refresh --skip-preview` reads the clusters from one list page and each kubeconfig once",
    async () => {
      const { total, byRoute } = await calls(() => p.refresh(["--skip-preview"]));
      expect(byRoute["GET /v1/clusters/:cluster_id/kubeconfig"], JSON.stringify(byRoute)).toBe(N);
      expect(total, JSON.stringify(byRoute)).toBeLessThanOrEqual(PASS);
    },
    STEP_TIMEOUT,
  );

  it(
    "`preview --refresh` costs one pass",
    async () => {
      const { total, byRoute } = await calls(() => p.preview(["--refresh", "--expect-no-changes"]));
      expect(total, JSON.stringify(byRoute)).toBeLessThanOrEqual(PASS);
    },
    STEP_TIMEOUT,
  );

  it(
    "`refresh` with its preview costs two passes",
    async () => {
      const { total, byRoute } = await calls(() => p.run(["refresh", "--yes"]));
      expect(total, JSON.stringify(byRoute)).toBeLessThanOrEqual(2 * PASS);
    },
    STEP_TIMEOUT,
  );

  it(
    "drift made in the console is caught by a shared pass: scale, resize, upgrade, rotation, deletion",
    async () => {
      // Kubeconfigs in plaintext (ciphertexts differ on every write).
      const exported = async () => {
        const text = (await p.run(["stack", "export", "--show-secrets"])).stdout;
        return JSON.parse(text).deployment.resources as Array<{ urn: string; id?: string; outputs: Record<string, any> }>;
      };
      const before = await exported();
      const outputsIn = (resources: typeof before, n: number) => resources.find((r) => r.urn.endsWith(`::c${n}`))?.outputs;
      const id = (n: number) => before.find((r) => r.urn.endsWith(`::c${n}`))!.id as string;
      const kubeconfigOf = (resources: typeof before, n: number) => outputsIn(resources, n)?.kubeconfig as unknown;

      await emu.control.scale(id(0), 4);
      await emu.control.resize(id(1), "large");
      await emu.control.upgrade(id(2), "v1.99.0");
      await emu.control.rotateKubeconfig(id(3));
      await emu.control.deleteCluster(id(4));
      for (const n of [0, 1, 2]) await emu.waitForCluster(id(n), (c) => c?.status === "running");
      await emu.waitForCluster(id(4), (c) => c === undefined);

      const { total, byRoute } = await calls(() => p.refresh(["--skip-preview"]));
      // The deleted cluster is confirmed gone by its own GET (404) before it leaves the state.
      expect(byRoute["GET /v1/clusters/:cluster_id"], JSON.stringify(byRoute)).toBe(1);
      expect(total, JSON.stringify(byRoute)).toBeLessThanOrEqual(PASS);

      const after = await exported();
      const outputs = (n: number) => outputsIn(after, n);
      expect(outputs(0)).toMatchObject({ workers: 4 });
      expect(outputs(1)).toMatchObject({ nodeSize: "large" });
      const clusters = await emu.clusters();
      expect(outputs(2)?.kubernetesVersion).toBe("v1.99.0");
      expect(clusters.find((c) => c.id === id(2))?.kubernetes_version).toBe("v1.99.0");
      expect(outputs(4)).toBeUndefined();
      // Only the rotated cluster's kubeconfig changed in the state.
      expect(kubeconfigOf(after, 3)).not.toEqual(kubeconfigOf(before, 3));
      for (const n of [0, 1, 2, 5, 6]) expect(kubeconfigOf(after, n)).toEqual(kubeconfigOf(before, n));
    },
    STEP_TIMEOUT,
  );
});
