import { describe, expect, it } from "vitest";
import { findCreatedCluster, type ApiCluster, type CreateClusterRequest } from "../../src/client";

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

describe("findCreatedCluster", () => {
  it("finds the cluster with our name created after the request started", () => {
    const ours = cluster("cls_new", T0 + 150);
    expect(findCreatedCluster([cluster("cls_old", T0 - 3_600_000), ours], req, T0)).toBe(ours);
  });

  it("never takes a same-named cluster that existed before the request", () => {
    expect(findCreatedCluster([cluster("cls_old", T0 - 60_000)], req, T0)).toBeUndefined();
  });

  it("tolerates the one-second resolution of our estimate of the server clock", () => {
    expect(findCreatedCluster([cluster("cls_a", T0 - 900)], req, T0)?.id).toBe("cls_a");
    expect(findCreatedCluster([cluster("cls_a", T0 - 900)], req, T0, 0)).toBeUndefined();
  });

  it("ignores other names, other shapes and clusters being deleted", () => {
    const list = [
      cluster("cls_1", T0 + 10, { name: "web-2" }),
      cluster("cls_2", T0 + 10, { name: "Web" }),
      cluster("cls_3", T0 + 10, { workers: 5 }),
      cluster("cls_4", T0 + 10, { node_size: "large" }),
      cluster("cls_5", T0 + 10, { phase: "baremetal" }),
      cluster("cls_6", T0 + 10, { status: "deleting" }),
    ];
    expect(findCreatedCluster(list, req, T0)).toBeUndefined();
    expect(findCreatedCluster(list, { ...req, workers: 5 }, T0)?.id).toBe("cls_3");
  });

  it("skips clusters another create call of this process already returned", () => {
    const list = [cluster("cls_a", T0 + 100), cluster("cls_b", T0 + 900)];
    expect(findCreatedCluster(list, req, T0, undefined, new Set(["cls_b"]))?.id).toBe("cls_a");
    expect(findCreatedCluster(list, req, T0, undefined, new Set(["cls_a", "cls_b"]))).toBeUndefined();
  });

  it("takes the newest when several match", () => {
    const list = [cluster("cls_a", T0 + 100), cluster("cls_c", T0 + 900), cluster("cls_b", T0 + 500)];
    expect(findCreatedCluster(list, req, T0)?.id).toBe("cls_c");
  });
});
