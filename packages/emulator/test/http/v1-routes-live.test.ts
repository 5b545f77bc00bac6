/** Every endpoint, field and status of the service's API, over real HTTP. */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ManualClock } from "../../src";
import type { RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";
import { kubectl } from "../support/kubernetes";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("cluster and node endpoints", () => {
  let emu: RunningEmulator;
  let api: Api;
  const clock = new ManualClock();
  beforeAll(async () => {
    ({ emu, api } = await start({ clock, provisionSeconds: 60, scaleSeconds: 30, deleteSeconds: 20 }));
  });
  afterAll(() => emu.close());

  it("creates a cluster: 201, abbreviated body, provisioning, phase managed by default", async () => {
    const res = await api.post("/v1/clusters", clusterBody({ name: "web-1" }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ["control_planes", "created_at", "id", "name", "node_size", "phase", "status", "workers"].sort(),
    );
    expect(res.body).toMatchObject({
      name: "web-1",
      status: "provisioning",
      phase: "managed",
      control_planes: 1,
      workers: 2,
      node_size: "small",
    });
    expect(res.body.id).toMatch(/^cls_[0-9a-f]{16}$/);
    expect(res.body.created_at).toMatch(ISO);
    expect(res.headers.get("location")).toBe(`/v1/clusters/${res.body.id}`);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("retrieves the full object, the same shape as a list item", async () => {
    const created = (
      await api.post(
        "/v1/clusters",
        clusterBody({ name: "full", control_planes: 3, workers: 3, node_size: "large", phase: "onpremise", infra_id: "dc-7" }),
      )
    ).body;
    const got = await api.get(`/v1/clusters/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      ...created,
      node_count: 6,
      infra_id: "dc-7",
      kubernetes_version: expect.stringMatching(/^v\d+\.\d+\.\d+$/),
    });
    expect(got.body.endpoint).toMatch(/^https:\/\/[a-z0-9.-]+:\d+$/);
    expect(got.body.updated_at).toMatch(ISO);
    const list = await api.get("/v1/clusters?per_page=100");
    const item = list.body.items.find((c: any) => c.id === created.id);
    expect(item).toEqual(got.body);
    expect(Object.keys(item).sort()).toEqual(Object.keys(got.body).sort());
  });

  it("lists with items, total, page, per_page and defaults page 1 / per_page 20", async () => {
    const res = await api.get("/v1/clusters");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, per_page: 20, total: 2 });
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items.map((c: any) => c.name)).toEqual(["web-1", "full"]);
  });

  it("filters the list by status", async () => {
    expect((await api.get("/v1/clusters?status=provisioning")).body.total).toBe(2);
    expect((await api.get("/v1/clusters?status=running")).body).toMatchObject({ total: 0, items: [] });
  });

  it("lists nodes (control planes + workers) and gets each node with every field", async () => {
    const c = (await api.post("/v1/clusters", clusterBody({ name: "nodes", control_planes: 3, workers: 2 }))).body;
    const nodes = await api.get(`/v1/clusters/${c.id}/nodes`);
    expect(nodes.status).toBe(200);
    expect(nodes.body.total).toBe(5);
    expect(nodes.body.items.map((n: any) => n.role)).toEqual(["controlplane", "controlplane", "controlplane", "worker", "worker"]);
    const ips = new Set<string>();
    for (const n of nodes.body.items) {
      expect(n.id).toMatch(/^node_[0-9a-f]{16}$/);
      expect(n).toMatchObject({ cluster_id: c.id, status: "provisioning", node_size: "small" });
      expect(n.talos_version).toMatch(/^v\d+\.\d+\.\d+$/);
      expect(n.kubernetes_version).toMatch(/^v\d+\.\d+\.\d+$/);
      expect(n.ip_address).toMatch(/^10\.\d+\.\d+\.\d+$/);
      expect(n.created_at).toMatch(ISO);
      ips.add(n.ip_address);
      const one = await api.get(`/v1/clusters/${c.id}/nodes/${n.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(n);
      expect(Object.keys(one.body).sort()).toEqual(
        [
          "cluster_id",
          "created_at",
          "id",
          "ip_address",
          "kubernetes_version",
          "name",
          "node_size",
          "role",
          "status",
          "talos_version",
        ].sort(),
      );
    }
    expect(ips.size).toBe(5);
    expect((await api.get(`/v1/clusters/${c.id}/nodes/node_0000000000000000`)).body.error).toBe("not_found");
  });

  it("serves the kubeconfig as YAML text that kubectl accepts", async () => {
    const c = (await api.post("/v1/clusters", clusterBody({ name: "kube" }))).body;
    const res = await api.get(`/v1/clusters/${c.id}/kubeconfig`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/yaml/);
    expect(() => JSON.parse(res.text)).toThrow();
    const doc = parse(res.text);
    expect(doc.kind).toBe("Config");
    // No API server without --kubernetes: the emulator's stand-in (no-kubernetes-live.test.ts).
    expect(doc.clusters[0].cluster.server).toBe(`${emu.url}/_no-kubernetes/${c.id}`);
    expect(doc["current-context"]).toBe(doc.contexts[0].name);
    expect(doc.users[0].user.token).toMatch(/^kc_/);
    let installed = true;
    try {
      execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    } catch {
      installed = false;
    }
    if (installed) {
      // Not synchronously: a kubectl may ask the server (this process) for its version first.
      const out = await kubectl(res.text, ["config", "view", "-o", "json"]);
      expect(out.code).toBe(0);
      const view = JSON.parse(out.stdout);
      expect(view.clusters[0].cluster.server).toBe(doc.clusters[0].cluster.server);
      expect(view["current-context"]).toBe(doc["current-context"]);
    }
  });

  it("modifies workers with PATCH once running: scaling, then running", async () => {
    const c = (await api.post("/v1/clusters", clusterBody({ name: "patch-me" }))).body;
    clock.advanceSeconds(60);
    expect((await api.get(`/v1/clusters/${c.id}`)).body.status).toBe("running");
    const res = await api.patch(`/v1/clusters/${c.id}`, { workers: 4 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, status: "scaling", workers: 4 });
    clock.advanceSeconds(30);
    const after = (await api.get(`/v1/clusters/${c.id}`)).body;
    expect(after).toMatchObject({ status: "running", workers: 4, node_count: 5 });
  });

  it("deletes with 204 and no body; deleting, then 404", async () => {
    const c = (await api.post("/v1/clusters", clusterBody({ name: "bye" }))).body;
    clock.advanceSeconds(60);
    const res = await api.del(`/v1/clusters/${c.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await api.get(`/v1/clusters/${c.id}`)).body.status).toBe("deleting");
    clock.advanceSeconds(20);
    const gone = await api.get(`/v1/clusters/${c.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: "not_found", message: expect.stringContaining(c.id) });
  });

  it("answers 404 not_found for an unknown cluster on every cluster route", async () => {
    for (const [m, p] of [
      ["GET", "/v1/clusters/cls_ffffffffffffffff"],
      ["PATCH", "/v1/clusters/cls_ffffffffffffffff"],
      ["DELETE", "/v1/clusters/cls_ffffffffffffffff"],
      ["GET", "/v1/clusters/cls_ffffffffffffffff/kubeconfig"],
      ["GET", "/v1/clusters/cls_ffffffffffffffff/nodes"],
      ["GET", "/v1/clusters/cls_ffffffffffffffff/nodes/node_ffffffffffffffff"],
    ]) {
      const res = await api.req(m, p, m === "PATCH" ? { workers: 2 } : undefined);
      expect(res.status, `${m} ${p}`).toBe(404);
      expect(res.body.error).toBe("not_found");
    }
  });
});
