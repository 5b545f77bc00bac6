import { describe, expect, it } from "vitest";
import type { ApiCluster, ApiNode } from "../../src/shared/wire-types";
import { toClusterInfo, toCreateRequest, toInputsAfterRead, toNodeInfo, toOutputs, toUpdateRequest } from "../../src/provider/mapping";

const api: ApiCluster = {
  id: "cls_0123456789abcdef",
  name: "prod",
  status: "running",
  phase: "managed",
  control_planes: 3,
  workers: 2,
  node_size: "medium",
  node_count: 5,
  endpoint: "https://10.1.2.3:6443",
  kubernetes_version: "v1.30.2",
  created_at: "2024-01-01T00:00:00Z",
  updated_at: "2024-01-01T00:05:00Z",
  infra_id: null,
};

describe("mapping", () => {
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

  it("builds the create body, sending infra_id only when set", () => {
    const inputs = { name: "prod", controlPlanes: 1, workers: 3, nodeSize: "small" as const, phase: "managed" as const };
    expect(toCreateRequest(inputs)).toEqual({ name: "prod", control_planes: 1, workers: 3, node_size: "small", phase: "managed" });
    expect(toCreateRequest({ ...inputs, phase: "baremetal", infraId: "rack-7" })).toMatchObject({ phase: "baremetal", infra_id: "rack-7" });
  });

  it("builds a PATCH with only the changed fields", () => {
    const olds = { workers: 2, nodeSize: "medium" as const };
    expect(toUpdateRequest(olds, { workers: 2, nodeSize: "medium" })).toEqual({});
    expect(toUpdateRequest(olds, { workers: 5, nodeSize: "medium" })).toEqual({ workers: 5 });
    expect(toUpdateRequest(olds, { workers: 2, nodeSize: "xlarge" })).toEqual({ node_size: "xlarge" });
    expect(toUpdateRequest(olds, { workers: 1, nodeSize: "small" })).toEqual({ workers: 1, node_size: "small" });
  });

  it("builds outputs carrying the connection and hidden inputs, nothing undefined", () => {
    const carried = {
      infraId: "dc-1",
      connection: { endpoint: "http://e", token: "t" },
      __timeouts: { create: "1h" },
      __urn: "urn:x",
      __autonamed: true,
      __import: "cls_x",
      __provider: "code",
    };
    const outs = toOutputs(api, carried, "kubeconfig-text");
    expect(outs).toEqual({
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
      infraId: "dc-1", // the API said null: keep what the program asked for
      kubeconfig: "kubeconfig-text",
      connection: { endpoint: "http://e", token: "t" },
      __timeouts: { create: "1h" },
      __urn: "urn:x",
      __autonamed: true,
    });
    expect(Object.values(toOutputs(api, {}, undefined))).not.toContain(undefined);
  });

  it("records the actual workers and size as inputs after a read (drift shows up)", () => {
    const previous = { name: "prod", workers: 2, nodeSize: "medium" as const, connection: { token: "t" }, __autonamed: true, __urn: "u" };
    const inputs = toInputsAfterRead({ ...api, workers: 7, node_size: "large" }, previous);
    expect(inputs).toEqual({
      name: "prod",
      controlPlanes: 3,
      workers: 7,
      nodeSize: "large",
      phase: "managed",
      connection: { token: "t" },
      __autonamed: true,
      __urn: "u",
    });
  });

  it("fills every input from the API for an adopted cluster", () => {
    expect(toInputsAfterRead({ ...api, infra_id: "dc-9", phase: "onpremise" }, {})).toEqual({
      name: "prod",
      controlPlanes: 3,
      workers: 2,
      nodeSize: "medium",
      phase: "onpremise",
      infraId: "dc-9",
    });
  });
});
