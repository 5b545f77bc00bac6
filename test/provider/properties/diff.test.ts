import { describe, expect, it } from "vitest";
import { diffCluster } from "../../../src/provider/properties/diff";
import { UNKNOWN } from "../../../src/provider/properties/unknown";

// State as create leaves it (outputs) and the matching checked inputs.
const olds = {
  name: "prod",
  status: "running",
  phase: "managed",
  controlPlanes: 3,
  workers: 2,
  nodeSize: "medium",
  nodeCount: 5,
  endpoint: "https://10.0.0.1:6443",
  kubeconfig: "apiVersion: v1",
  __urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::prod",
};
const news = { name: "prod", phase: "managed", controlPlanes: 3, workers: 2, nodeSize: "medium", __urn: olds.__urn };

describe("diff", () => {
  it("sees no change when the program matches the cluster", () => {
    const d = diffCluster(olds, news);
    expect(d).toMatchObject({ changes: false, replaces: [], deleteBeforeReplace: false, diffs: [] });
    expect(d.detailedDiff).toEqual({});
  });

  it("replaces a cluster the service reports in error (deleting it first when the name is pinned)", () => {
    const d = diffCluster({ ...olds, status: "error" }, news);
    expect(d).toMatchObject({ changes: true, replaces: ["status"], deleteBeforeReplace: true });
    expect(d.detailedDiff.status).toEqual({ kind: "UPDATE_REPLACE", inputDiff: false });
    const auto = diffCluster({ ...olds, status: "error", __autonamed: true }, { ...news, __autonamed: true });
    expect(auto).toMatchObject({ changes: true, replaces: ["status"], deleteBeforeReplace: false });
  });

  it("updates a cluster recorded while still provisioning, so that the next up waits for it (a refresh drops the engine's init error)", () => {
    const d = diffCluster({ ...olds, status: "provisioning" }, news);
    expect(d).toMatchObject({ changes: true, replaces: [], deleteBeforeReplace: false, diffs: ["status"] });
    expect(d.detailedDiff).toEqual({ status: { kind: "UPDATE", inputDiff: false } });
    // Any other change of the program is the update, and it waits too.
    expect(diffCluster({ ...olds, status: "provisioning" }, { ...news, workers: 4 }).diffs).toEqual(["workers"]);
    for (const status of ["running", "scaling", "upgrading"]) expect(diffCluster({ ...olds, status }, news).changes).toBe(false);
  });

  it("updates workers and nodeSize in place", () => {
    const d = diffCluster(olds, { ...news, workers: 4, nodeSize: "large" });
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual([]);
    expect(d.diffs).toEqual(["workers", "nodeSize"]);
    expect(d.detailedDiff).toEqual({
      workers: { kind: "UPDATE", inputDiff: true },
      nodeSize: { kind: "UPDATE", inputDiff: true },
    });
    expect(d.stables).toEqual(["name", "controlPlanes", "phase", "infraId"]);
  });

  it.each([
    ["controlPlanes", 1],
    ["phase", "onpremise"],
  ])("replaces on %s; the explicit unchanged name means delete first", (prop, value) => {
    const d = diffCluster(olds, { ...news, [prop]: value });
    expect(d.replaces).toEqual([prop]);
    expect(d.deleteBeforeReplace).toBe(true);
    expect(d.detailedDiff[prop]).toEqual({ kind: "UPDATE_REPLACE", inputDiff: true });
  });

  it("replaces on infraId (added, changed, removed)", () => {
    expect(diffCluster(olds, { ...news, infraId: "dc-1" }).detailedDiff.infraId.kind).toBe("ADD_REPLACE");
    expect(diffCluster({ ...olds, infraId: "dc-1" }, { ...news, infraId: "dc-2" }).detailedDiff.infraId.kind).toBe("UPDATE_REPLACE");
    expect(diffCluster({ ...olds, infraId: "dc-1" }, news).detailedDiff.infraId.kind).toBe("DELETE_REPLACE");
  });

  it("treats null, empty and missing infraId alike (the API may return null)", () => {
    expect(diffCluster({ ...olds, infraId: null }, news).changes).toBe(false);
    expect(diffCluster({ ...olds, infraId: "" }, { ...news, infraId: undefined }).changes).toBe(false);
  });

  it("creates before deleting when the name changes", () => {
    const d = diffCluster(olds, { ...news, name: "prod-2" });
    expect(d.replaces).toEqual(["name"]);
    expect(d.deleteBeforeReplace).toBe(false);
  });

  it("creates before deleting an auto-named cluster (the replacement gets a new name)", () => {
    const auto = { ...news, name: "prod-abc1234", __autonamed: true };
    const d = diffCluster({ ...olds, name: "prod-abc1234", __autonamed: true }, { ...auto, controlPlanes: 1 });
    expect(d.replaces).toEqual(["controlPlanes"]);
    expect(d.deleteBeforeReplace).toBe(false);
  });

  it("ignores connection, timeouts and the other hidden inputs", () => {
    const d = diffCluster(
      { ...olds, connection: { endpoint: "http://a", token: "x" }, __timeouts: { create: "1h" } },
      {
        ...news,
        connection: { endpoint: "http://b", token: "y" },
        __timeouts: { create: "2h" },
        __urn: "urn:other",
        __import: "cls_1",
        __provider: "exports.handler=1",
      },
    );
    expect(d.changes).toBe(false);
  });

  it("ignores outputs that are not inputs (status, endpoint, kubeconfig...)", () => {
    expect(diffCluster({ ...olds, status: "scaling", nodeCount: 9, kubeconfig: "other" }, news).changes).toBe(false);
  });

  it("assumes an unknown value changes (update or replace by property)", () => {
    expect(diffCluster(olds, { ...news, workers: UNKNOWN })).toMatchObject({ changes: true, replaces: [] });
    const d = diffCluster(olds, { ...news, name: UNKNOWN });
    expect(d.replaces).toEqual(["name"]);
    expect(d.deleteBeforeReplace).toBe(false);
  });

  it("after a refresh saw drift, diff asks to put the program's value back", () => {
    // Refresh recorded the actual worker count (5); the program still says 2.
    const d = diffCluster({ ...olds, workers: 5 }, news);
    expect(d).toMatchObject({ changes: true, replaces: [], diffs: ["workers"] });
  });
});
