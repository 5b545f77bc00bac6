/**
 * examples/basic with the real Pulumi CLI against the emulator: up, no-change preview, refresh
 * (same kubeconfig, still no change), destroy. The kubeconfig is exported as a secret and never
 * appears in plain text in CLI output or in the state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  filesContaining,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  type RunResult,
} from "../lifecycle/harness.mjs";
import { exampleProject, mutations } from "./project";

const STEP = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("examples/basic (real CLI, emulator)", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  const results: RunResult[] = [];
  const track = <T extends RunResult>(r: T): T => {
    results.push(r);
    return r;
  };
  let clusterId = "";
  let kubeconfig = "";

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    project = await exampleProject("basic", emu);
  }, STEP);

  afterAll(async () => {
    if (project && clusterId) await project.destroy([], { allowFailure: true });
    await project?.dispose();
    await emu?.close();
  }, STEP);

  it(
    "up creates one running cluster and exports endpoint, version, node count and a secret kubeconfig",
    async () => {
      track(await project.up());
      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      const [c] = clusters;
      expect(c).toMatchObject({ status: "running", control_planes: 1, workers: 2, node_size: "small" });
      clusterId = c.id;

      const outputs = await project.outputs();
      expect(outputs).toEqual({
        clusterId: c.id,
        endpoint: c.endpoint,
        kubernetesVersion: c.kubernetes_version,
        nodeCount: 3,
        kubeconfig: "[secret]",
      });
      const kc = await emu.api("GET", `/v1/clusters/${c.id}/kubeconfig`);
      expect(kc.status).toBe(200);
      kubeconfig = kc.text;
      expect((await project.outputs({ showSecrets: true })).kubeconfig).toBe(kubeconfig);
    },
    STEP,
  );

  it(
    "a second preview has nothing to do",
    async () => {
      track(await project.preview(["--expect-no-changes"]));
    },
    STEP,
  );

  it(
    "refresh keeps the kubeconfig text identical and leaves nothing to do",
    async () => {
      await emu.control.resetRequestCounts();
      track(await project.refresh());
      expect((await emu.control.requestCounts())["GET /v1/clusters/:cluster_id/kubeconfig"]).toBeGreaterThan(0);
      expect((await project.outputs({ showSecrets: true })).kubeconfig).toBe(kubeconfig);
      track(await project.preview(["--expect-no-changes"]));
      expect(await mutations(emu)).toEqual({ post: 0, patch: 0, del: 0 });
    },
    STEP,
  );

  it(
    "keeps the kubeconfig and the API token out of plain text (CLI output, state, backend files)",
    async () => {
      const token = /token: (\S+)/.exec(kubeconfig)?.[1];
      expect(token, "the emulator's kubeconfig has a bearer token").toBeTruthy();
      const needles = [token!, emu.token];
      for (const r of results) for (const n of needles) expect(r.output.includes(n), r.command).toBe(false);
      const state = await project.exportStack();
      for (const n of needles) expect(state.text.includes(n)).toBe(false);
      const cluster = state.resources.find((r) => r.type === CLUSTER_TYPE)!;
      expect(cluster.outputs.kubeconfig).toHaveProperty("ciphertext");
      expect(await filesContaining(project.root, needles)).toEqual([]);
    },
    STEP,
  );

  it(
    "destroy deletes the cluster",
    async () => {
      track(await project.destroy());
      expect(await emu.clusters()).toEqual([]);
      expect((await mutations(emu)).del).toBe(1);
      clusterId = "";
    },
    STEP,
  );
});
