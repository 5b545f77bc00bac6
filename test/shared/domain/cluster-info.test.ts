import { describe, expect, it } from "vitest";
import type { ApiNode } from "@pulumi-cms/contract";
import { API_CLUSTER } from "../../support/fixtures";
import { toClusterInfo, toNodeInfo } from "../../../src/shared/domain/cluster-info";

const api = API_CLUSTER;

describe("clusters and nodes in camelCase", () => {
  it("camelCases a cluster and drops a null infra_id", () => {
    expect(toClusterInfo(api)).toEqual({
      id: "cls_0123456789abcdef",
      name: "prod",
      status: "running",
      phase: "managed",
      controlPlanes: 3,
      workers: 2,
      nodeSize: "medium",
      nodeCount: 5,
      endpoint: "https://10.1.2.3:6443",
      kubernetesVersion: "v1.30.2",
      createdAt: "2024-01-01T00:00:00Z",
      updatedAt: "2024-01-01T00:05:00Z",
    });
    expect(toClusterInfo({ ...api, infra_id: "dc-1" }).infraId).toBe("dc-1");
  });

  it("maps the abbreviated create response without inventing fields", () => {
    const { id, name, phase, control_planes, workers, node_size, created_at } = api;
    const info = toClusterInfo({ id, name, status: "provisioning", phase, control_planes, workers, node_size, created_at });
    expect(info).not.toHaveProperty("endpoint");
    expect(info).not.toHaveProperty("nodeCount");
  });

  it("camelCases a node", () => {
    const node: ApiNode = {
      id: "node_1",
      cluster_id: api.id,
      name: "prod-cp-1",
      role: "controlplane",
      status: "ready",
      node_size: "medium",
      ip_address: "10.0.0.4",
      kubernetes_version: "v1.30.2",
      talos_version: "v1.7.0",
      created_at: "2024-01-01T00:00:00Z",
    };
    expect(toNodeInfo(node)).toEqual({
      id: "node_1",
      clusterId: api.id,
      name: "prod-cp-1",
      role: "controlplane",
      status: "ready",
      nodeSize: "medium",
      ipAddress: "10.0.0.4",
      kubernetesVersion: "v1.30.2",
      talosVersion: "v1.7.0",
      createdAt: "2024-01-01T00:00:00Z",
    });
  });
});
