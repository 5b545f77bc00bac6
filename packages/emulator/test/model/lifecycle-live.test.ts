/** Statuses derived from time — staggered nodes, scaling, deleting, failures, upgrades. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start, until } from "../support/emulator";

const clock = new ManualClock(Date.UTC(2025, 2, 1));
let emu: RunningEmulator;
let api: Api;

beforeAll(async () => {
  ({ emu, api } = await start({ clock, provisionSeconds: 60, scaleSeconds: 30, deleteSeconds: 20, upgradeSeconds: 40 }));
});
afterAll(() => emu.close());

const statuses = async (id: string) => (await api.get(`/v1/clusters/${id}/nodes`)).body.items.map((n: { status: string }) => n.status);
const cluster = async (id: string) => (await api.get(`/v1/clusters/${id}`)).body;
const count = (list: string[], s: string) => list.filter((x) => x === s).length;

describe("provisioning", () => {
  it("nodes become ready one after another; running exactly when the last is ready", async () => {
    const created = (await api.post("/v1/clusters", clusterBody({ name: "stagger", control_planes: 3, workers: 3 }))).body;
    const t0 = clock.now();
    expect(await statuses(created.id)).toEqual(Array(6).fill("provisioning"));
    // Node i of 6 is ready at (i+1)*10 s; installing at 40 % and joining at 75 % of that.
    clock.set(t0 + 8_000);
    expect(await statuses(created.id)).toEqual(["joining", "installing", "provisioning", "provisioning", "provisioning", "provisioning"]);
    clock.set(t0 + 30_000);
    const half = await statuses(created.id);
    expect(count(half, "ready")).toBe(3);
    expect((await cluster(created.id)).status).toBe("provisioning");
    clock.set(t0 + 59_999);
    expect(count(await statuses(created.id), "ready")).toBe(5);
    expect((await cluster(created.id)).status).toBe("provisioning");
    clock.set(t0 + 60_000);
    expect(await statuses(created.id)).toEqual(Array(6).fill("ready"));
    const c = await cluster(created.id);
    expect(c.status).toBe("running");
    expect(c.updated_at).toBe(new Date(t0 + 60_000).toISOString());
    expect(c.created_at).toBe(new Date(t0).toISOString());
  });

  it("failNext(create) ends the provisioning in error with the last node not_ready", async () => {
    await emu.control.failNext("create");
    const c = (await api.post("/v1/clusters", clusterBody({ name: "doomed" }))).body;
    expect(c.status).toBe("provisioning");
    clock.advanceSeconds(60);
    expect((await cluster(c.id)).status).toBe("error");
    expect(await statuses(c.id)).toEqual(["ready", "ready", "not_ready"]);
    // Only the next create fails.
    const ok = (await api.post("/v1/clusters", clusterBody({ name: "fine" }))).body;
    clock.advanceSeconds(60);
    expect((await cluster(ok.id)).status).toBe("running");
    // An error cluster cannot be modified but can be deleted.
    expect((await api.patch(`/v1/clusters/${c.id}`, { workers: 3 })).status).toBe(409);
    expect((await api.del(`/v1/clusters/${c.id}`)).status).toBe(204);
    expect((await cluster(c.id)).status).toBe("deleting");
  });
});

describe("scaling", () => {
  let id: string;
  beforeAll(async () => {
    id = (await api.post("/v1/clusters", clusterBody({ name: "elastic", control_planes: 1, workers: 2 }))).body.id;
    clock.advanceSeconds(60);
  });

  it("scale up: new workers appear at once and join one by one, then running", async () => {
    const res = await api.patch(`/v1/clusters/${id}`, { workers: 5 });
    expect(res.body).toMatchObject({ status: "scaling", workers: 5, node_count: 6 });
    expect(await statuses(id)).toEqual(["ready", "ready", "ready", "provisioning", "provisioning", "provisioning"]);
    clock.advanceSeconds(10);
    expect(count(await statuses(id), "ready")).toBe(4);
    expect((await cluster(id)).status).toBe("scaling");
    clock.advanceSeconds(20);
    expect(await statuses(id)).toEqual(Array(6).fill("ready"));
    expect(await cluster(id)).toMatchObject({ status: "running", workers: 5, node_count: 6 });
    const names = (await api.get(`/v1/clusters/${id}/nodes`)).body.items.map((n: { name: string }) => n.name);
    expect(names).toEqual([
      "elastic-cp-1",
      "elastic-worker-1",
      "elastic-worker-2",
      "elastic-worker-3",
      "elastic-worker-4",
      "elastic-worker-5",
    ]);
  });

  it("scale down: surplus workers drain, delete and disappear, newest first", async () => {
    const before = (await api.get(`/v1/clusters/${id}/nodes`)).body.items;
    await api.patch(`/v1/clusters/${id}`, { workers: 2 });
    clock.advanceSeconds(5); // first of three removals: draining until 5 s, deleting, gone at 10 s
    expect(await statuses(id)).toEqual(["ready", "ready", "ready", "ready", "ready", "deleting"]);
    clock.advanceSeconds(5);
    const mid = (await api.get(`/v1/clusters/${id}/nodes`)).body;
    expect(mid.total).toBe(5);
    expect(mid.items.at(-1).status).toBe("draining");
    expect((await api.get(`/v1/clusters/${id}/nodes/${before[5].id}`)).status).toBe(404);
    clock.advanceSeconds(20);
    const after = (await api.get(`/v1/clusters/${id}/nodes`)).body;
    expect(after.items.map((n: { id: string }) => n.id)).toEqual(before.slice(0, 3).map((n: { id: string }) => n.id));
    expect(await cluster(id)).toMatchObject({ status: "running", workers: 2, node_count: 3 });
  });

  it("resize: nodes change size one at a time; the cluster shows the new size at once", async () => {
    const res = await api.patch(`/v1/clusters/${id}`, { node_size: "large" });
    expect(res.body).toMatchObject({ status: "scaling", node_size: "large" });
    clock.advanceSeconds(10); // first of three nodes resized
    const mid = (await api.get(`/v1/clusters/${id}/nodes`)).body.items;
    expect(mid.map((n: { node_size: string }) => n.node_size)).toEqual(["large", "small", "small"]);
    expect(mid.map((n: { status: string }) => n.status)).toEqual(["ready", "draining", "ready"]);
    clock.advanceSeconds(20);
    const done = (await api.get(`/v1/clusters/${id}/nodes`)).body.items;
    expect(done.every((n: { node_size: string; status: string }) => n.node_size === "large" && n.status === "ready")).toBe(true);
    expect((await cluster(id)).status).toBe("running");
  });

  it("a PATCH that changes nothing is 200 and leaves the status", async () => {
    const before = await cluster(id);
    const res = await api.patch(`/v1/clusters/${id}`, { workers: 2, node_size: "large" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
  });

  it("a change that takes no time is answered as done: running, with the new size, nodes ready", async () => {
    await emu.control.setTimings({ scaleSeconds: 0 });
    try {
      const res = await api.patch(`/v1/clusters/${id}`, { workers: 3 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "running", workers: 3, node_count: 4 });
      expect(res.body).toEqual(await cluster(id));
      expect(await statuses(id)).toEqual(Array(4).fill("ready"));
      await api.patch(`/v1/clusters/${id}`, { workers: 2 });
      expect(await cluster(id)).toMatchObject({ status: "running", workers: 2, node_count: 3 });
    } finally {
      await emu.control.setTimings({ scaleSeconds: 30 });
    }
  });

  it("failNext(update) ends the next PATCH in error", async () => {
    await emu.control.failNext("update");
    await api.patch(`/v1/clusters/${id}`, { workers: 3 });
    clock.advanceSeconds(30);
    expect((await cluster(id)).status).toBe("error");
    expect((await statuses(id)).at(-1)).toBe("not_ready");
  });
});

describe("deleting", () => {
  it("every node drains, nodes go one by one, the cluster is gone exactly at the end", async () => {
    const id = (await api.post("/v1/clusters", clusterBody({ name: "doomed2", control_planes: 1, workers: 3 }))).body.id;
    clock.advanceSeconds(60);
    expect((await api.del(`/v1/clusters/${id}`)).status).toBe(204);
    expect(await statuses(id)).toEqual(Array(4).fill("draining"));
    expect((await api.get("/v1/clusters?status=deleting")).body.items.map((c: { id: string }) => c.id)).toContain(id);
    clock.advanceSeconds(2.5); // 4 nodes over 20 s: the newest worker is deleting at 2.5 s, gone at 5 s
    expect(await statuses(id)).toEqual(["draining", "draining", "draining", "deleting"]);
    clock.advanceSeconds(2.5);
    expect((await api.get(`/v1/clusters/${id}/nodes`)).body.total).toBe(3);
    clock.advanceSeconds(14.999);
    expect((await cluster(id)).status).toBe("deleting");
    clock.advance(1);
    expect((await api.get(`/v1/clusters/${id}`)).status).toBe(404);
    expect((await api.get(`/v1/clusters/${id}/nodes`)).status).toBe(404);
    expect((await api.get("/v1/clusters?per_page=100")).body.items.map((c: { id: string }) => c.id)).not.toContain(id);
  });
});

describe("console (control API) changes", () => {
  it("scale, resize and upgrade go through scaling/upgrading; console delete works from any status", async () => {
    const id = (await api.post("/v1/clusters", clusterBody({ name: "console", control_planes: 1, workers: 1 }))).body.id;
    await expect(emu.control.scale(id, 2)).rejects.toMatchObject({ statusCode: 409, code: "conflict" });
    clock.advanceSeconds(60);
    await emu.control.scale(id, 2);
    expect(await cluster(id)).toMatchObject({ status: "scaling", workers: 2 });
    clock.advanceSeconds(30);
    await emu.control.resize(id, "medium");
    expect(await cluster(id)).toMatchObject({ status: "scaling", node_size: "medium" });
    clock.advanceSeconds(30);
    const v = (await cluster(id)).kubernetes_version;
    await emu.control.upgrade(id, "v1.31.2");
    expect(await cluster(id)).toMatchObject({ status: "upgrading", kubernetes_version: v });
    clock.advanceSeconds(20); // 3 nodes over 40 s: the control plane is done at 13.3 s
    const mid = (await api.get(`/v1/clusters/${id}/nodes`)).body.items;
    expect(mid[0].kubernetes_version).toBe("v1.31.2");
    expect(mid[2].kubernetes_version).toBe(v);
    clock.advanceSeconds(20);
    expect(await cluster(id)).toMatchObject({ status: "running", kubernetes_version: "v1.31.2", workers: 2, node_size: "medium" });
    const nodes = (await api.get(`/v1/clusters/${id}/nodes`)).body.items;
    expect(nodes.every((n: { kubernetes_version: string }) => n.kubernetes_version === "v1.31.2")).toBe(true);

    const young = (await api.post("/v1/clusters", clusterBody({ name: "young" }))).body.id;
    await emu.control.deleteCluster(young); // while provisioning: allowed from the console
    expect((await cluster(young)).status).toBe("deleting");
    clock.advanceSeconds(20);
    expect((await api.get(`/v1/clusters/${young}`)).status).toBe(404);
  });
});

describe("real time with tiny durations", () => {
  it("walks provisioning → running → scaling → running → deleting → gone", async () => {
    const { emu: live, api: liveApi } = await start({ provisionSeconds: 0.3, scaleSeconds: 0.3, deleteSeconds: 0.3 });
    try {
      const id = (await liveApi.post("/v1/clusters", clusterBody({ name: "live" }))).body.id;
      const seen = new Set<string>();
      await until(
        async () => (await liveApi.get(`/v1/clusters/${id}`)).body.status,
        (s) => {
          seen.add(s);
          return s === "running";
        },
      );
      expect(seen.has("provisioning")).toBe(true);
      expect((await liveApi.patch(`/v1/clusters/${id}`, { workers: 3 })).body.status).toBe("scaling");
      await until(
        async () => (await liveApi.get(`/v1/clusters/${id}`)).body.status,
        (s) => s === "running",
      );
      expect((await liveApi.get(`/v1/clusters/${id}/nodes`)).body.total).toBe(4);
      expect((await liveApi.del(`/v1/clusters/${id}`)).status).toBe(204);
      await until(
        async () => (await liveApi.get(`/v1/clusters/${id}`)).status,
        (s) => s === 404,
      );
    } finally {
      await live.close();
    }
  });
});
