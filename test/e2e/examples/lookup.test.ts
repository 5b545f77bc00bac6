/**
 * examples/lookup with the real Pulumi CLI against an emulator that already has clusters
 * (created through the API, as another team or tool would). The stack reads them and their
 * nodes with the package's functions, exports a summary, and never changes anything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiCluster } from "@pulumi-cms/contract";
import { findPulumi, lifecycleSkipped, startLifecycleEmulator, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { exampleProject, mutations } from "./project";

const STEP = 5 * 60_000;

/** The clusters the emulator starts with. */
const EXISTING = [
  { name: "shop", control_planes: 3, workers: 2, node_size: "large" },
  { name: "ci", control_planes: 1, workers: 1, node_size: "small" },
  { name: "analytics", control_planes: 1, workers: 4, node_size: "xlarge" },
] as const;

describe.skipIf(lifecycleSkipped())("examples/lookup (real CLI, emulator with clusters)", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  let existing: ApiCluster[] = [];

  beforeAll(async () => {
    await findPulumi();
    // Long scaling, so a console scale below leaves a cluster in `scaling` while the stack runs.
    emu = await startLifecycleEmulator({ scaleSeconds: 600 });
    for (const spec of EXISTING) {
      const res = await emu.api("POST", "/v1/clusters", spec);
      expect(res.status, res.text).toBe(201);
      await emu.waitForCluster(res.body.id, (c) => c?.status === "running");
    }
    existing = await emu.clusters();
    project = await exampleProject("lookup", emu);
    await emu.control.resetRequestCounts();
  }, STEP);

  afterAll(async () => {
    await project?.dispose();
    await emu?.close();
  }, STEP);

  it(
    "up creates no resource and exports a summary of every cluster and its nodes",
    async () => {
      const up = await project.up();
      const custom = up.steps.filter((s) => s.kind === "pre" && s.type !== "pulumi:pulumi:Stack");
      expect(custom).toEqual([]);

      const out = await project.outputs();
      expect(out.clusterCount).toBe(3);
      expect(out.byStatus).toEqual({ running: 3 });
      expect(out.nodeCount).toBe(3 + 2 + 1 + 1 + 1 + 4);
      expect(out.clusters.map((c: any) => c.id).sort()).toEqual(existing.map((c) => c.id).sort());
      const shop = out.clusters.find((c: any) => c.name === "shop");
      expect(shop).toMatchObject({ status: "running", nodeSize: "large", controlPlanes: 3, workers: 2, notReady: 0 });
      expect(shop.nodes.controlPlane).toHaveLength(3);
      expect(shop.nodes.worker).toHaveLength(2);
      // The names are the service's own node names, not made up by the program.
      const apiNodes = await emu.api("GET", `/v1/clusters/${shop.id}/nodes`);
      const names = apiNodes.body.items.map((n: any) => n.name).sort();
      expect([...shop.nodes.controlPlane, ...shop.nodes.worker].sort()).toEqual(names);
    },
    STEP,
  );

  it(
    "a second preview has nothing to do, and the clusters were only read",
    async () => {
      await project.preview(["--expect-no-changes"]);
      const counts = await emu.control.requestCounts();
      expect(await mutations(emu)).toEqual({ post: 0, patch: 0, del: 0 });
      expect(counts["GET /v1/clusters/:cluster_id/nodes"]).toBeGreaterThanOrEqual(3);
    },
    STEP,
  );

  it(
    "the status filter from stack config narrows the summary",
    async () => {
      await emu.control.scale(existing.find((c) => c.name === "ci")!.id, 2);
      await project.setConfig("status", "scaling");
      await project.up();
      const out = await project.outputs();
      expect(out.clusterCount).toBe(1);
      expect(out.clusters[0]).toMatchObject({ name: "ci", status: "scaling", workers: 2 });
      expect(out.clusters[0].notReady).toBeGreaterThan(0); // the new worker is still coming up
      await project.removeConfig("status");
    },
    STEP,
  );

  it(
    "destroy leaves every cluster in place",
    async () => {
      await project.destroy();
      expect((await emu.clusters()).map((c) => c.id).sort()).toEqual(existing.map((c) => c.id).sort());
      expect(await mutations(emu)).toEqual({ post: 0, patch: 0, del: 0 });
    },
    STEP,
  );
});
