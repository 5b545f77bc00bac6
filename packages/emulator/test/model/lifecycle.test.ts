/**
 * The lifecycle's transitions on records alone: no server, no clock but the numbers passed in.
 * (The same statuses as the API answers them: lifecycle-live.test.ts.)
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_KUBERNETES_VERSION,
  provisionCluster,
  scaleCluster,
  settle,
  startDeletion,
  upgradeCluster,
} from "../../src/model/lifecycle";
import { type ClusterRecord, type CreateInput, touch } from "../../src/model/records";
import { clusterJson, toApiCluster, toApiNode, toSummary } from "../../src/http/wire-view";

const T0 = Date.UTC(2025, 2, 1);
const input = (over: Partial<CreateInput> = {}): CreateInput => ({
  name: "c",
  control_planes: 1,
  workers: 2,
  node_size: "medium",
  phase: "managed",
  infra_id: null,
  ...over,
});

/** The node statuses once the cluster is settled at `at` (times only move forward). */
const statusesAt = (c: ClusterRecord, at: number) => {
  settle(c, at);
  return c.nodes.map((n) => n.status);
};

/** A cluster provisioned at T0 in 60 s and settled once running, at T0 + 60 s. */
function runningCluster(over: Partial<CreateInput> = {}): ClusterRecord {
  const c = provisionCluster(input(over), T0, 60_000, false, 0);
  settle(c, T0 + 60_000);
  expect(c.status).toBe("running");
  return c;
}

describe("provisioning", () => {
  it("nodes walk provisioning, installing, joining, ready one after another; the cluster runs exactly when the last is ready", () => {
    const c = provisionCluster(input({ control_planes: 1, workers: 2 }), T0, 60_000, false, 7);
    expect(c.status).toBe("provisioning");
    expect(c.nodes.map((n) => n.name)).toEqual(["c-cp-1", "c-worker-1", "c-worker-2"]);
    expect(c.nodes.map((n) => n.ip_address)).toEqual(["10.0.7.10", "10.0.7.11", "10.0.7.12"]);
    // Node i of 3 is ready at (i+1)*20 s; installing at 40 % and joining at 75 % of that.
    expect(statusesAt(c, T0)).toEqual(["provisioning", "provisioning", "provisioning"]);
    expect(statusesAt(c, T0 + 8_000)).toEqual(["installing", "provisioning", "provisioning"]);
    expect(statusesAt(c, T0 + 15_000)).toEqual(["joining", "provisioning", "provisioning"]);
    expect(statusesAt(c, T0 + 20_000)).toEqual(["ready", "installing", "provisioning"]);
    expect(statusesAt(c, T0 + 59_999)).toEqual(["ready", "ready", "joining"]);
    expect(c.status).toBe("provisioning");
    expect(statusesAt(c, T0 + 60_000)).toEqual(["ready", "ready", "ready"]);
    expect(c).toMatchObject({ status: "running", updated_at: new Date(T0 + 60_000).toISOString(), created_at: new Date(T0).toISOString() });
    expect(c.op).toBeUndefined();
    expect(c.nodes.every((n) => n.pending === undefined)).toBe(true);
  });

  it("a failing provision ends in error with its last node not_ready, the others ready", () => {
    const c = provisionCluster(input(), T0, 60_000, true, 0);
    expect(statusesAt(c, T0 + 60_000)).toEqual(["ready", "ready", "not_ready"]);
    expect(c.status).toBe("error");
  });

  it("settling before the next event is due changes nothing", () => {
    const c = provisionCluster(input(), T0, 60_000, false, 0);
    settle(c, T0);
    const before = structuredClone(c);
    expect(c.nextAt).toBe(T0 + 8_000);
    expect(settle(c, c.nextAt - 1)).toBe(false);
    expect(c).toEqual(before);
  });
});

describe("scaling", () => {
  it("to the shape it already has: nothing changes and the answer is false", () => {
    const c = runningCluster();
    const before = structuredClone(c);
    expect(scaleCluster(c, { workers: 2, node_size: "medium" }, T0 + 70_000, 30_000, false)).toBe(false);
    expect(c).toEqual(before);
  });

  it("up: the new workers exist at once and join one window after another; running with the new count when the last is ready", () => {
    const c = runningCluster();
    const t = T0 + 100_000;
    expect(scaleCluster(c, { workers: 4 }, t, 30_000, false)).toBe(true);
    expect(c).toMatchObject({ status: "scaling", workers: 4, updated_at: new Date(t).toISOString() });
    expect(c.nodes.map((n) => n.name)).toEqual(["c-cp-1", "c-worker-1", "c-worker-2", "c-worker-3", "c-worker-4"]);
    expect(statusesAt(c, t)).toEqual(["ready", "ready", "ready", "provisioning", "provisioning"]);
    expect(statusesAt(c, t + 15_000)).toEqual(["ready", "ready", "ready", "ready", "provisioning"]);
    expect(c.status).toBe("scaling");
    expect(statusesAt(c, t + 30_000)).toEqual(Array(5).fill("ready"));
    expect(c.status).toBe("running");
  });

  it("down: the newest workers go first, draining, then deleting, then gone", () => {
    const c = runningCluster({ workers: 3 });
    const t = T0 + 100_000;
    scaleCluster(c, { workers: 1 }, t, 20_000, false);
    expect(statusesAt(c, t)).toEqual(["ready", "ready", "ready", "draining"]);
    expect(statusesAt(c, t + 5_000)).toEqual(["ready", "ready", "ready", "deleting"]);
    expect(statusesAt(c, t + 10_000)).toEqual(["ready", "ready", "draining"]);
    expect(c.nodes.map((n) => n.name)).toEqual(["c-cp-1", "c-worker-1", "c-worker-2"]);
    expect(statusesAt(c, t + 20_000)).toEqual(["ready", "ready"]);
    expect(c).toMatchObject({ status: "running", workers: 1 });
    expect(c.nodes.map((n) => n.name)).toEqual(["c-cp-1", "c-worker-1"]);
  });

  it("a resize drains each node in turn, control planes first, and gives it the new size when it is ready again", () => {
    const c = runningCluster({ workers: 1 });
    const t = T0 + 100_000;
    scaleCluster(c, { node_size: "large" }, t, 20_000, false);
    expect(c.node_size).toBe("large");
    expect(statusesAt(c, t)).toEqual(["draining", "ready"]);
    expect(statusesAt(c, t + 10_000)).toEqual(["ready", "draining"]);
    expect(c.nodes.map((n) => n.node_size)).toEqual(["large", "medium"]);
    expect(statusesAt(c, t + 20_000)).toEqual(["ready", "ready"]);
    expect(c.nodes.map((n) => n.node_size)).toEqual(["large", "large"]);
    expect(c.status).toBe("running");
  });

  it("a failing scale ends in error with the node of its last task not_ready", () => {
    const c = runningCluster();
    const t = T0 + 100_000;
    scaleCluster(c, { workers: 3 }, t, 30_000, true);
    expect(statusesAt(c, t + 30_000)).toEqual(["ready", "ready", "ready", "not_ready"]);
    expect(c.status).toBe("error");
  });
});

describe("upgrading", () => {
  it("to the version it runs: nothing changes and the answer is false", () => {
    const c = runningCluster();
    const before = structuredClone(c);
    expect(upgradeCluster(c, DEFAULT_KUBERNETES_VERSION, T0 + 70_000, 40_000)).toBe(false);
    expect(c).toEqual(before);
  });

  it("nodes move to the new version one at a time; the cluster's version changes only when the last is done", () => {
    const c = runningCluster({ workers: 1 });
    const t = T0 + 100_000;
    upgradeCluster(c, "v1.31.0", t, 40_000);
    expect(c.status).toBe("upgrading");
    expect(statusesAt(c, t)).toEqual(["draining", "ready"]);
    expect(statusesAt(c, t + 8_000)).toEqual(["not_ready", "ready"]);
    expect(statusesAt(c, t + 20_000)).toEqual(["ready", "draining"]);
    expect(c.nodes.map((n) => n.kubernetes_version)).toEqual(["v1.31.0", DEFAULT_KUBERNETES_VERSION]);
    expect(c.kubernetes_version).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(statusesAt(c, t + 40_000)).toEqual(["ready", "ready"]);
    expect(c).toMatchObject({ status: "running", kubernetes_version: "v1.31.0" });
    expect(c.nodes.map((n) => n.kubernetes_version)).toEqual(["v1.31.0", "v1.31.0"]);
  });
});

describe("deleting", () => {
  it("abandons the operation under way: every node drains at once, workers go first, and the cluster is gone exactly when its last node is", () => {
    const c = runningCluster({ workers: 1 });
    const t = T0 + 100_000;
    upgradeCluster(c, "v1.31.0", t, 40_000);
    settle(c, t + 1_000);
    startDeletion(c, t + 1_000, 20_000);
    expect(c.status).toBe("deleting");
    expect(c.nodes.map((n) => n.status)).toEqual(["draining", "draining"]);
    expect(settle(c, t + 6_000)).toBe(false);
    expect(c.nodes.map((n) => [n.name, n.status])).toEqual([
      ["c-cp-1", "draining"],
      ["c-worker-1", "deleting"],
    ]);
    expect(settle(c, t + 11_000)).toBe(false);
    expect(c.nodes.map((n) => n.name)).toEqual(["c-cp-1"]);
    expect(settle(c, t + 20_999)).toBe(false);
    expect(settle(c, t + 21_000)).toBe(true);
    // The abandoned upgrade was never applied.
    expect(c.kubernetes_version).toBe(DEFAULT_KUBERNETES_VERSION);
  });
});

describe("the wire view", () => {
  it("answers what the record holds now: the cached JSON follows every transition", () => {
    const c = provisionCluster(input(), T0, 60_000, false, 0);
    expect(JSON.parse(clusterJson(c))).toEqual(toApiCluster(c));
    expect(toApiCluster(c)).toMatchObject({ status: "provisioning", node_count: 3 });
    settle(c, T0 + 60_000);
    expect(JSON.parse(clusterJson(c))).toMatchObject({ status: "running", node_count: 3 });
    scaleCluster(c, { workers: 1 }, T0 + 70_000, 10_000, false);
    expect(JSON.parse(clusterJson(c))).toMatchObject({ status: "scaling", workers: 1 });
    settle(c, T0 + 80_000);
    expect(JSON.parse(clusterJson(c))).toMatchObject({ status: "running", node_count: 2 });
  });

  it("a change made outside the transitions shows once the record is touched, not before", () => {
    const c = runningCluster();
    clusterJson(c);
    c.endpoint = "https://elsewhere.example:6443";
    expect(JSON.parse(clusterJson(c)).endpoint).not.toBe(c.endpoint);
    touch(c);
    expect(JSON.parse(clusterJson(c)).endpoint).toBe(c.endpoint);
  });

  it("carries nothing of the record's bookkeeping: no pending events, no credential, no internal status", () => {
    const c = provisionCluster(input(), T0, 60_000, false, 0);
    expect(Object.keys(toSummary(c)).sort()).toEqual(
      ["control_planes", "created_at", "id", "name", "node_size", "phase", "status", "workers"].sort(),
    );
    const text = JSON.stringify([toApiCluster(c), ...c.nodes.map((n) => toApiNode(c, n))]);
    expect(text).not.toContain(c.kubeconfig.token);
    expect(text).not.toContain("pending");
    expect(toApiNode(c, c.nodes[0])).toMatchObject({ cluster_id: c.id, status: "provisioning" });
  });
});
