/** The one rule for taking an existing cluster: only a seeded name proves a cluster is a create's. */
import { describe, expect, it } from "vitest";
import { judgeOwnership, matchesRequest } from "../../../src/shared/domain/ownership";
import type { ApiCluster, CreateClusterRequest } from "@pulumi-cms/contract";

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const req: CreateClusterRequest = { name: "web", control_planes: 1, workers: 2, node_size: "small" };
function cluster(id: string, createdAt: number, over: Partial<ApiCluster> = {}): ApiCluster {
  return {
    id,
    name: "web",
    status: "provisioning",
    phase: "managed",
    control_planes: 1,
    workers: 2,
    node_size: "small",
    created_at: new Date(createdAt).toISOString(),
    node_count: 3,
    endpoint: "https://10.0.0.1:6443",
    kubernetes_version: "v1.30.0",
    updated_at: new Date(createdAt).toISOString(),
    ...over,
  };
}
const ids = (o: ReturnType<typeof judgeOwnership>) => (o.verdict === "unproven" ? o.candidates.map((c) => c.id) : []);

describe("a seeded name", () => {
  it("the one cluster carrying it is ours, whatever its age or shape", () => {
    const ours = cluster("cls_ours", T0 - 3_600_000, { workers: 9 });
    expect(
      judgeOwnership([cluster("cls_x", T0, { name: "other" }), ours], { name: "web", proof: "seeded", request: req, notBefore: T0 }),
    ).toEqual({
      verdict: "ours",
      cluster: ours,
    });
  });

  it("several carrying it: nobody guesses", () => {
    const o = judgeOwnership([cluster("cls_a", T0), cluster("cls_b", T0)], { name: "web", proof: "seeded" });
    expect(o).toMatchObject({ verdict: "unproven", reason: "ambiguous" });
    expect(ids(o)).toEqual(["cls_a", "cls_b"]);
  });

  it("none carrying it, or only ones being deleted or excluded: none", () => {
    const list = [cluster("cls_dying", T0, { status: "deleting" }), cluster("cls_state", T0)];
    expect(judgeOwnership(list, { name: "web", proof: "seeded", exclude: new Set(["cls_state"]) })).toEqual({ verdict: "none" });
  });
});

describe("a name that proves nothing (explicit, or derived from the URN alone)", () => {
  it("is never ours: a cluster made after the request began with its name and shape is only a candidate", () => {
    const o = judgeOwnership([cluster("cls_new", T0 + 150)], { name: "web", proof: "none", request: req, notBefore: T0 });
    expect(o).toMatchObject({ verdict: "unproven", reason: "no-proof" });
    expect(ids(o)).toEqual(["cls_new"]);
  });

  it("a same-named cluster that existed before the request is not even a candidate", () => {
    expect(judgeOwnership([cluster("cls_old", T0 - 60_000)], { name: "web", proof: "none", request: req, notBefore: T0 })).toEqual({
      verdict: "none",
    });
  });

  it("tolerates the one-second resolution of the estimate of the server clock", () => {
    expect(ids(judgeOwnership([cluster("cls_a", T0 - 900)], { name: "web", proof: "none", request: req, notBefore: T0 }))).toEqual([
      "cls_a",
    ]);
    expect(
      judgeOwnership([cluster("cls_a", T0 - 900)], { name: "web", proof: "none", request: req, notBefore: T0, toleranceMs: 0 }),
    ).toEqual({
      verdict: "none",
    });
  });

  it("other names, other shapes, clusters being deleted and excluded ids are not candidates", () => {
    const list = [
      cluster("cls_1", T0 + 10, { name: "web-2" }),
      cluster("cls_2", T0 + 10, { name: "Web" }),
      cluster("cls_3", T0 + 10, { workers: 5 }),
      cluster("cls_4", T0 + 10, { node_size: "large" }),
      cluster("cls_5", T0 + 10, { phase: "baremetal" }),
      cluster("cls_6", T0 + 10, { status: "deleting" }),
      cluster("cls_7", T0 + 10),
    ];
    const query = { name: "web", proof: "none" as const, request: req, notBefore: T0, exclude: new Set(["cls_7"]) };
    expect(judgeOwnership(list, query)).toEqual({ verdict: "none" });
    expect(ids(judgeOwnership(list, { ...query, request: { ...req, workers: 5 } }))).toEqual(["cls_3"]);
  });

  it("without a start time every same-named cluster of the shape is a candidate", () => {
    expect(ids(judgeOwnership([cluster("cls_old", T0 - 86_400_000)], { name: "web", proof: "none", request: req }))).toEqual(["cls_old"]);
  });
});

describe("matchesRequest", () => {
  it("does not hold a field the server leaves out against the cluster", () => {
    const c = cluster("cls_a", T0);
    delete (c as Partial<ApiCluster>).workers;
    expect(matchesRequest(c, req)).toBe(true);
    expect(matchesRequest(cluster("cls_b", T0), { ...req, phase: "onpremise", infra_id: "x" })).toBe(false);
  });
});
