import { describe, expect, it } from "vitest";
import { API_CLUSTER } from "../../support/fixtures";
import { toCreateRequest, toInputsAfterRead, toOutputs, toUpdateRequest } from "../../../src/provider/properties/mapping";

const api = API_CLUSTER;

describe("the provider's property bags", () => {
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

  it("builds outputs carrying the connection and the auto-name's mark, nothing undefined", () => {
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
