import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { RunningEmulator } from "../../packages/emulator/src";
import { NotFoundError, type ApiCluster } from "../../src/client";
import { SMALL, client, emulator, rejection, waitForStatus } from "../support/client";
import { waitUntilGone } from "../support/emulator";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.control.reset();
});

describe("every endpoint against the emulator", () => {
  it("creates a cluster and returns the abbreviated body", async () => {
    const c = client(emu);
    const created = await c.createCluster({ name: "alpha", ...SMALL });
    expect(created).toMatchObject({
      name: "alpha",
      status: "provisioning",
      phase: "managed",
      control_planes: 1,
      workers: 1,
      node_size: "small",
    });
    expect(created.id).toMatch(/^cls_[0-9a-f]{16}$/);
    expect(Date.parse(created.created_at)).not.toBeNaN();
    const all = await emu.control.clusters();
    expect(all.map((x) => x.id)).toEqual([created.id]);
  });

  it("gets the full cluster", async () => {
    const c = client(emu);
    const { id } = await c.createCluster({ name: "beta", ...SMALL, workers: 2 });
    const got = await c.getCluster(id);
    expect(got).toMatchObject({ id, name: "beta", workers: 2, control_planes: 1 });
    expect(got.endpoint).toMatch(/^https:\/\/.+:\d+$/);
    expect(got.kubernetes_version).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(typeof got.node_count).toBe("number");
  });

  it("lists one page, with page size and status filter", async () => {
    const c = client(emu);
    const ids: string[] = [];
    for (const name of ["l1", "l2", "l3"]) ids.push((await c.createCluster({ name, ...SMALL })).id);
    const page = await c.listClusters({ page: 2, perPage: 2 });
    expect(page).toMatchObject({ total: 3, page: 2, per_page: 2 });
    expect(page.items.map((x) => x.id)).toEqual([ids[2]]);
    expect((await c.listClusters()).per_page).toBe(20);
    await waitForStatus(emu, ids[0]!, "running");
    await waitForStatus(emu, ids[2]!, "running");
    const running = await c.listClusters({ status: "running" });
    expect(running.items.every((x) => x.status === "running")).toBe(true);
    expect(running.items.length).toBe(3);
    expect((await c.listClusters({ status: "deleting" })).items).toEqual([]);
  });

  it("walks every page in listAllClusters", async () => {
    const c = client(emu);
    const ids = new Set<string>();
    for (let i = 0; i < 103; i++) ids.add((await c.createCluster({ name: `many-${i}`, ...SMALL })).id);
    await emu.control.resetRequestCounts();
    const all: ApiCluster[] = await c.listAllClusters();
    expect(all.length).toBe(103);
    expect(new Set(all.map((x) => x.id))).toEqual(ids);
    // Pages of 100: two requests, not six of the default 20.
    expect((await emu.control.requestCounts())["GET /v1/clusters"]).toBe(2);
  });

  it("updates a running cluster and returns the response body", async () => {
    const c = client(emu);
    const { id } = await c.createCluster({ name: "gamma", ...SMALL });
    await waitForStatus(emu, id, "running");
    const updated = await c.updateCluster(id, { workers: 3, node_size: "medium" });
    expect(updated).toMatchObject({ id, workers: 3, node_size: "medium", status: "scaling" });
    await waitForStatus(emu, id, "running");
    expect(await c.getCluster(id)).toMatchObject({ workers: 3, node_size: "medium", status: "running" });
  });

  it("deletes a cluster: deleting, then gone", async () => {
    const c = client(emu);
    const { id } = await c.createCluster({ name: "delta", ...SMALL });
    await waitForStatus(emu, id, "running");
    await expect(c.deleteCluster(id)).resolves.toBeUndefined();
    const during = await c.getCluster(id).catch((e: unknown) => e);
    if (!(during instanceof NotFoundError)) expect((during as ApiCluster).status).toBe("deleting");
    await waitUntilGone(emu, id);
    expect(await rejection(c.getCluster(id))).toBeInstanceOf(NotFoundError);
  });

  it("downloads the kubeconfig as plain YAML text", async () => {
    const c = client(emu);
    const { id } = await c.createCluster({ name: "epsilon", ...SMALL });
    const text = await c.getKubeconfig(id);
    expect(typeof text).toBe("string");
    expect(() => JSON.parse(text)).toThrow();
    const doc = parseYaml(text) as { kind?: string; clusters?: unknown[] };
    expect(doc.kind).toBe("Config");
    expect(Array.isArray(doc.clusters)).toBe(true);
  });

  it("lists and gets nodes", async () => {
    const c = client(emu);
    const { id } = await c.createCluster({ name: "zeta", control_planes: 3, workers: 2, node_size: "large" });
    const nodes = await c.listNodes(id);
    expect(nodes.total).toBe(5);
    expect(nodes.items.map((n) => n.role)).toEqual(["controlplane", "controlplane", "controlplane", "worker", "worker"]);
    const first = nodes.items[0]!;
    expect(first.cluster_id).toBe(id);
    const one = await c.getNode(id, first.id);
    expect(one).toMatchObject({ id: first.id, cluster_id: id, role: "controlplane", node_size: "large" });
    expect(one.id).toMatch(/^node_[0-9a-f]{16}$/);
  });

  it("accepts an endpoint with a trailing /v1 or slash", async () => {
    for (const endpoint of [`${emu.url}/`, `${emu.url}/v1`, `${emu.url}/v1/`]) {
      const c = client(emu, { endpoint });
      expect((await c.listClusters()).items).toEqual([]);
    }
  });
});
