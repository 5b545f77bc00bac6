/** The functions against the real emulator: results, paging, connection sources, errors, secrecy. */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client";
import { CmsError } from "../../src/shared/errors/cms-error";
import { startEmulator, type RunningEmulator } from "../../packages/emulator/src";
import {
  getCluster,
  getClusterOutput,
  getClusters,
  getClustersOutput,
  getKubeconfig,
  getKubeconfigOutput,
  getNode,
  getNodeOutput,
  getNodes,
  getNodesOutput,
} from "../../src/functions";
import { waitForStatus } from "../support/emulator";
import { rejection } from "../support/rejection";
import { outputValue } from "../support/outputs";

let emu: RunningEmulator;
let connection: { endpoint: string; token: string };
const ids: string[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  emu = await startEmulator({ port: 0, provisionSeconds: 0.2, scaleSeconds: 0.1, deleteSeconds: 0.1 });
  connection = { endpoint: emu.url, token: emu.token };
  const client = createClient(connection);
  // 25 clusters: more than one default page (20), so getClusters must walk the pages.
  for (let i = 0; i < 25; i++) {
    ids.push((await client.createCluster({ name: `fn-${i}`, control_planes: 1, workers: 1 + (i % 3), node_size: "small" })).id);
  }
  for (const id of ids) await waitForStatus(emu, id, "running");
});
afterAll(async () => {
  await emu.close();
});
afterEach(() => {
  process.env = { ...savedEnv };
});

describe("functions", () => {
  it("getCluster returns the camelCase cluster", async () => {
    const c = await getCluster({ id: ids[4], connection });
    expect(c).toMatchObject({
      id: ids[4],
      name: "fn-4",
      status: "running",
      phase: "managed",
      controlPlanes: 1,
      workers: 2,
      nodeSize: "small",
      nodeCount: 3,
      endpoint: expect.stringMatching(/^https:/),
      kubernetesVersion: expect.stringMatching(/^v/),
    });
    expect(c).not.toHaveProperty("node_size");
  });

  it("getClusters walks every page and filters by status", async () => {
    const all = await getClusters({ connection });
    expect(all.clusters.map((c) => c.id)).toEqual(ids);
    await emu.control.scale(ids[0], 5);
    const scaling = await getClusters({ status: "scaling", connection });
    expect(scaling.clusters.map((c) => c.id)).toEqual([ids[0]]);
    await expect(getClusters({ status: "bogus" as never, connection })).rejects.toThrow(/status must be one of provisioning, running/);
  });

  it("getNodes and getNode return camelCase nodes", async () => {
    const { nodes, total, clusterId } = await getNodes({ clusterId: ids[2], connection });
    expect(clusterId).toBe(ids[2]);
    expect(total).toBe(4);
    expect(nodes).toHaveLength(4);
    expect(nodes[0]).toMatchObject({
      clusterId: ids[2],
      role: "controlplane",
      status: "ready",
      ipAddress: expect.any(String),
      talosVersion: expect.stringMatching(/^v/),
    });
    const one = await getNode({ clusterId: ids[2], nodeId: nodes[1].id, connection });
    expect(one).toEqual(nodes[1]);
  });

  it("getKubeconfig returns the YAML; its Output form is secret", async () => {
    const k = await getKubeconfig({ clusterId: ids[1], connection });
    expect(k.kubeconfig).toContain("current-context");
    const out = getKubeconfigOutput({ clusterId: ids[1], connection });
    expect(await pulumi.isSecret(out)).toBe(true);
    expect((await outputValue(out)).kubeconfig).toBe(k.kubeconfig);
  });

  it("Output forms accept Inputs", async () => {
    const id = pulumi.output(ids[3]);
    expect((await outputValue(getClusterOutput({ id, connection }))).name).toBe("fn-3");
    expect((await outputValue(getClustersOutput({ connection }))).clusters).toHaveLength(25);
    const nodes = await outputValue(getNodesOutput({ clusterId: id, connection }));
    expect((await outputValue(getNodeOutput({ clusterId: id, nodeId: nodes.nodes[0].id, connection }))).id).toBe(nodes.nodes[0].id);
  });

  it("falls back to CMS_ENDPOINT / CMS_TOKEN", async () => {
    process.env.CMS_ENDPOINT = emu.url;
    process.env.CMS_TOKEN = emu.token;
    expect((await getCluster({ id: ids[0] })).id).toBe(ids[0]);
  });

  it("reads cms:endpoint / cms:token from the stack config", async () => {
    delete process.env.CMS_ENDPOINT;
    delete process.env.CMS_TOKEN;
    pulumi.runtime.setAllConfig({ "cms:endpoint": emu.url, "cms:token": emu.token }, ["cms:token"]);
    try {
      expect((await getCluster({ id: ids[0] })).id).toBe(ids[0]);
    } finally {
      pulumi.runtime.setAllConfig({});
    }
  });

  it("fails clearly, before any call, on missing arguments or connection", async () => {
    await emu.control.resetRequestCounts();
    await expect(getCluster({ id: "", connection })).rejects.toThrow("getCluster: id is required (a cluster (cls_...) id)");
    await expect(getNode({ clusterId: ids[0], nodeId: undefined as never, connection })).rejects.toThrow(/getNode: nodeId is required/);
    delete process.env.CMS_ENDPOINT;
    delete process.env.CMS_TOKEN;
    const missing = await rejection(getNodes({ clusterId: ids[0] }));
    expect(missing.message).toMatch(/pulumi config set cms:endpoint/);
    // A function has no resource: the message names the call's own argument.
    expect(missing.message).toContain("pass `connection: { endpoint }` to the function");
    expect(missing.message).not.toContain("resource");
    expect(await emu.control.requestCounts()).toEqual({});
  });

  it("names the function and hides the token in API errors", async () => {
    const gone = await rejection(getCluster({ id: "cls_00000000000000ff", connection }));
    // The id once (not again in the 404's own "not found"), then what to check.
    expect(gone.message).toBe(
      "getCluster: cluster cls_00000000000000ff does not exist or is not visible to the token in use " +
        "(GET answered 404 not_found): check the id, and that the token's scope covers it",
    );
    // Shown as its message alone if the program leaves it uncaught (test/e2e/lifecycle/failure-messages.test.ts).
    expect(pulumi.RunError.isInstance(gone)).toBe(true);
    expect(gone.stack).toBe("");
    const nodesGone = await rejection(getNodes({ clusterId: "cls_00000000000000ff", connection }));
    expect(nodesGone.message).toMatch(/^getNodes: cluster cls_00000000000000ff does not exist or is not visible to the token in use /);
    // docs/troubleshooting.md's way to tell it apart: a CmsError of the service's code.
    expect(gone).toBeInstanceOf(CmsError);
    expect(gone.code).toBe("not_found");
    // A lookup is not in the stack: a refresh would change nothing.
    expect(gone.message).not.toMatch(/refresh/);
    const token = "tok-function-secret-zzz";
    const err = await rejection(getKubeconfig({ clusterId: ids[0], connection: { endpoint: emu.url, token } }));
    expect(err.message).toMatch(/^getKubeconfig: /);
    expect(`${err.message}${err.stack}`).not.toContain(token);
  });

  it("outlasts transient faults", async () => {
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters", kind: "status", status: 503, count: 2 });
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id/nodes", kind: "drop", count: 1 });
    expect((await getClusters({ connection })).clusters).toHaveLength(25);
    expect((await getNodes({ clusterId: ids[5], connection })).nodes.length).toBeGreaterThan(0);
  });
});
