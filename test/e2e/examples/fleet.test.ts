/**
 * examples/fleet with the real Pulumi CLI against the emulator. The dev stack's clusters come
 * from Pulumi.dev.yaml; changing a size there and running `up` scales that cluster in place:
 * one PATCH, no create, no delete, same cluster id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  type RunResult,
} from "../lifecycle/harness.mjs";
import { exampleProject, mutations } from "./project";

const STEP = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("examples/fleet (real CLI, emulator)", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  const results: RunResult[] = [];
  const track = <T extends RunResult>(r: T): T => {
    results.push(r);
    return r;
  };
  let created = false;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    project = await exampleProject("fleet", emu, "dev");
  }, STEP);

  afterAll(async () => {
    if (project && created) await project.destroy([], { allowFailure: true });
    await project?.dispose();
    await emu?.close();
  }, STEP);

  it(
    "up creates the clusters of Pulumi.dev.yaml, named <stack>-<key>",
    async () => {
      track(await project.up());
      created = true;
      const byName = Object.fromEntries((await emu.clusters()).map((c) => [c.name, c]));
      expect(Object.keys(byName).sort()).toEqual(["dev-jobs", "dev-web"]);
      expect(byName["dev-web"]).toMatchObject({ status: "running", control_planes: 1, workers: 2, node_size: "small" });
      expect(byName["dev-jobs"]).toMatchObject({ status: "running", control_planes: 1, workers: 1, node_size: "medium" });
      ids.web = byName["dev-web"].id;
      ids.jobs = byName["dev-jobs"].id;

      const outputs = await project.outputs();
      expect(outputs.kubeconfigs).toBe("[secret]");
      expect(outputs.clusters.web).toMatchObject({ id: ids.web, name: "dev-web", workers: 2, nodeSize: "small", nodeCount: 3 });
      expect(outputs.clusters.jobs).toMatchObject({ id: ids.jobs, name: "dev-jobs", workers: 1, nodeSize: "medium", nodeCount: 2 });
      const kubeconfigs = (await project.outputs({ showSecrets: true })).kubeconfigs;
      expect(Object.keys(kubeconfigs).sort()).toEqual(["jobs", "web"]);
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
    "a size changed in stack config scales that cluster in place with one PATCH",
    async () => {
      await project.setConfig("clusters.web.workers", 3, { path: true });
      await project.setConfig("clusters.web.nodeSize", "medium", { path: true });
      await emu.control.resetRequestCounts();

      const up = track(await project.up());
      const ops = up.steps.filter((s) => s.type === CLUSTER_TYPE && s.kind === "pre").map((s) => `${s.urn.split("::").pop()}:${s.op}`);
      expect(ops.sort()).toEqual(["jobs:same", "web:update"]);
      expect(await mutations(emu)).toEqual({ post: 0, patch: 1, del: 0 });

      const web = (await emu.clusters()).find((c) => c.name === "dev-web");
      expect(web).toMatchObject({ id: ids.web, status: "running", workers: 3, node_size: "medium" });
      expect((await project.outputs()).clusters.web).toMatchObject({ id: ids.web, workers: 3, nodeSize: "medium", nodeCount: 4 });
      track(await project.preview(["--expect-no-changes"]));
    },
    STEP,
  );

  it(
    "the prod stack's config is valid: its preview plans two HA clusters",
    async () => {
      const prod = await project.otherStack("prod");
      const preview = track(await prod.preview());
      const creates = preview.steps.filter((s) => s.kind === "pre" && s.type === CLUSTER_TYPE && s.op === "create");
      const inputs = Object.fromEntries(creates.map((s) => [s.metadata.new?.inputs.name, s.metadata.new?.inputs]));
      expect(inputs["prod-web"]).toMatchObject({ controlPlanes: 3, workers: 6, nodeSize: "large" });
      expect(inputs["prod-jobs"]).toMatchObject({ controlPlanes: 3, workers: 4, nodeSize: "xlarge" });
    },
    STEP,
  );

  it(
    "destroy deletes every cluster of the fleet",
    async () => {
      await emu.control.resetRequestCounts();
      track(await project.destroy());
      expect(await emu.clusters()).toEqual([]);
      expect(await mutations(emu)).toEqual({ post: 0, patch: 0, del: 2 });
      created = false;
    },
    STEP,
  );

  it("no CLI output shows the API token", () => {
    for (const r of results) expect(r.output.includes(emu.token), r.command).toBe(false);
  });
});
