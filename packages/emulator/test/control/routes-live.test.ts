/** The control API, every route through HTTP (controlClient), and faults. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { controlClient, ControlError, ManualClock, type EmulatorControl, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

const clock = new ManualClock();
let emu: RunningEmulator;
let api: Api;
let http: EmulatorControl;

beforeAll(async () => {
  ({ emu, api } = await start({ clock, provisionSeconds: 10, scaleSeconds: 10, deleteSeconds: 10, upgradeSeconds: 10 }));
  http = controlClient(emu.url, emu.adminToken);
});
afterAll(() => emu.close());
beforeEach(() => http.reset());

async function runningCluster(name = "ctl"): Promise<string> {
  const id = (await api.post("/v1/clusters", clusterBody({ name }))).body.id;
  clock.advanceSeconds(10);
  return id;
}

describe("control routes over HTTP", () => {
  it("reset forgets clusters, faults and counts", async () => {
    await runningCluster();
    await http.injectFault({ kind: "status", status: 500, path: "/v1/nowhere" });
    expect((await http.clusters()).length).toBe(1);
    await http.reset();
    expect(await http.clusters()).toEqual([]);
    expect(await http.requestCounts()).toEqual({});
    expect((await api.as(emu.adminToken).get("/_emulator/faults")).body.items).toEqual([]);
  });

  it("clusters() sees everything, ignoring scopes, as full objects", async () => {
    const id = await runningCluster();
    await http.addToken({ token: "other-scope-1", permissions: ["read"], scope: "cluster:cls_0000000000000000", plan: "pro" });
    expect((await api.as("other-scope-1").get("/v1/clusters")).body.total).toBe(0);
    const all = await http.clusters();
    expect(all).toEqual([(await api.get(`/v1/clusters/${id}`)).body]);
  });

  it("request counts per method and route, including faulted and 429 requests", async () => {
    const id = await runningCluster();
    await http.resetRequestCounts();
    await http.injectFault({ kind: "status", status: 503, method: "GET", path: "/v1/clusters/:cluster_id" });
    expect((await api.get(`/v1/clusters/${id}`)).status).toBe(503);
    await api.get(`/v1/clusters/${id}`);
    await api.patch(`/v1/clusters/${id}`, { workers: 3 });
    await api.get(`/v1/clusters/${id}/nodes`);
    await api.as("bad-token-123").get("/v1/clusters");
    await api.get("/v1/bogus");
    await api.req("PUT", "/v1/clusters");
    expect(await http.requestCounts()).toEqual({
      "GET /v1/clusters/:cluster_id": 2,
      "PATCH /v1/clusters/:cluster_id": 1,
      "GET /v1/clusters/:cluster_id/nodes": 1,
      "GET /v1/clusters": 1,
      "GET (unmatched)": 1,
      "PUT /v1/clusters": 1,
    });
    await http.resetRequestCounts();
    expect(await http.requestCounts()).toEqual({});
  });

  it("failNext over HTTP, and it rejects an unknown operation", async () => {
    await http.failNext("create");
    const id = (await api.post("/v1/clusters", clusterBody())).body.id;
    clock.advanceSeconds(10);
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("error");
    await expect(http.failNext("destroy" as "create")).rejects.toMatchObject({ status: 400, code: "validation_failed" });
  });

  it("scale, resize, upgrade, rotate and delete over HTTP", async () => {
    const id = await runningCluster();
    await http.scale(id, 4);
    expect((await api.get(`/v1/clusters/${id}`)).body).toMatchObject({ status: "scaling", workers: 4 });
    await expect(http.resize(id, "large")).rejects.toMatchObject({ status: 409, code: "conflict" });
    clock.advanceSeconds(10);
    await http.resize(id, "large");
    clock.advanceSeconds(10);
    await http.upgrade(id, "v1.31.0");
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("upgrading");
    clock.advanceSeconds(10);
    expect((await api.get(`/v1/clusters/${id}`)).body).toMatchObject({
      status: "running",
      workers: 4,
      node_size: "large",
      kubernetes_version: "v1.31.0",
    });

    const before = parse((await api.get(`/v1/clusters/${id}/kubeconfig`)).text);
    await http.rotateKubeconfig(id);
    const after = parse((await api.get(`/v1/clusters/${id}/kubeconfig`)).text);
    expect(after.users[0].user.token).not.toBe(before.users[0].user.token);
    expect(after.clusters[0].cluster.server).toBe(before.clusters[0].cluster.server);

    await http.deleteCluster(id);
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("deleting");
    clock.advanceSeconds(10);
    expect((await api.get(`/v1/clusters/${id}`)).status).toBe(404);
    await expect(http.deleteCluster(id)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("every console answer is JSON: a cluster action answers with the cluster right after it, the rest with what they did", async () => {
    const admin = api.as(emu.adminToken);
    const id = await runningCluster("json-bodies");
    const expectJson = async (what: string, res: Promise<{ status: number; headers: Headers; body: unknown }>, body: unknown) => {
      const r = await res;
      expect(r.status, what).toBe(200);
      expect(r.headers.get("content-type"), what).toMatch(/^application\/json/);
      expect(r.body, what).toMatchObject(body as object);
    };
    await expectJson("scale", admin.post(`/_emulator/clusters/${id}/scale`, { workers: 3 }), { id, status: "scaling", workers: 3 });
    clock.advanceSeconds(10);
    await expectJson("resize", admin.post(`/_emulator/clusters/${id}/resize`, { node_size: "large" }), {
      id,
      status: "scaling",
      node_size: "large",
    });
    clock.advanceSeconds(10);
    await expectJson("upgrade", admin.post(`/_emulator/clusters/${id}/upgrade`, { kubernetes_version: "v1.31.0" }), {
      id,
      status: "upgrading",
    });
    clock.advanceSeconds(10);
    await expectJson("rotate", admin.post(`/_emulator/clusters/${id}/rotate-kubeconfig`), { id, status: "running" });
    await expectJson("console delete", admin.del(`/_emulator/clusters/${id}`), { id, status: "deleting" });
    await expectJson("fail-next", admin.post("/_emulator/fail-next", { operation: "create" }), { failNext: "create" });
    await expectJson("clear faults", admin.del("/_emulator/faults"), { items: [] });
    await expectJson("reset counts", admin.del("/_emulator/request-counts"), {});
    await http.addToken({ token: "revoked-json-token", permissions: ["read"], scope: "*", plan: "pro" });
    await expectJson("revoke", admin.req("DELETE", "/_emulator/tokens", { token: "revoked-json-token" }), { revoked: true });
    await expectJson("reset", admin.post("/_emulator/reset"), { reset: true });
  });

  it("bad control input is 400 naming the field", async () => {
    const id = await runningCluster();
    await expect(http.scale(id, 0)).rejects.toThrow(/workers must be an integer/);
    await expect(http.resize(id, "giant")).rejects.toThrow(/node_size must be one of/);
    await expect(http.upgrade(id, "1.31")).rejects.toThrow(/kubernetes_version must look like v<major>/);
    await expect(http.setTimings({ provisionSeconds: -1 })).rejects.toThrow(/provisionSeconds must be a number of seconds/);
    await expect(http.injectFault({ kind: "explode" } as never)).rejects.toThrow(/kind must be one of/);
    await expect(http.injectFault({ kind: "status", status: 404 } as never)).rejects.toThrow(/status must be 500, 502 or 503/);
    const err = await http.scale("cls_0000000000000000", 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlError);
    expect(err).toMatchObject({ status: 404, statusCode: 404, code: "not_found" });
    // The in-process control fails the same way.
    await expect(emu.control.scale("cls_0000000000000000", 2)).rejects.toMatchObject({ status: 404, statusCode: 404, code: "not_found" });
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("running");
  });

  it("addToken adds a community token usable at once", async () => {
    await http.addToken({ token: "community-test-token", permissions: ["read"], scope: "*", plan: "community" });
    const res = await api.as("community-test-token").get("/v1/clusters");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });

  it("setTimings changes the durations of later operations", async () => {
    await http.setTimings({ provisionSeconds: 100 });
    expect((await api.as(emu.adminToken).get("/_emulator/timings")).body).toEqual({
      provisionSeconds: 100,
      scaleSeconds: 10,
      deleteSeconds: 10,
      upgradeSeconds: 10,
    });
    const id = (await api.post("/v1/clusters", clusterBody())).body.id;
    clock.advanceSeconds(99);
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("provisioning");
    clock.advanceSeconds(1);
    expect((await api.get(`/v1/clusters/${id}`)).body.status).toBe("running");
    await http.setTimings({ provisionSeconds: 10 });
  });

  it("stats reports clusters, nodes and memory", async () => {
    await runningCluster();
    const stats = (await api.as(emu.adminToken).get("/_emulator/stats")).body;
    expect(stats).toMatchObject({ clusters: 1, nodes: 3 });
    expect(stats.rss_bytes).toBeGreaterThan(0);
  });

  it("the in-process control is the same state as the HTTP one", async () => {
    const id = await runningCluster();
    await emu.control.scale(id, 3);
    expect((await http.clusters())[0]).toMatchObject({ status: "scaling", workers: 3 });
  });
});

describe("faults", () => {
  it("status faults answer N times, then the route works again", async () => {
    await http.injectFault({ kind: "status", status: 502, count: 2, method: "post", path: "/v1/clusters" });
    const a = await api.post("/v1/clusters", clusterBody());
    expect(a.status).toBe(502);
    expect(a.body).toEqual({ error: "bad_gateway", message: expect.any(String) });
    expect((await api.post("/v1/clusters", clusterBody())).status).toBe(502);
    expect((await api.get("/v1/clusters")).status).toBe(200); // GET does not match
    expect((await api.post("/v1/clusters", clusterBody())).status).toBe(201);
    expect((await http.clusters()).length).toBe(1); // faulted creates changed nothing
  });

  it("500 faults say internal and nothing else; 503 says unavailable", async () => {
    await http.injectFault({ kind: "status", status: 500 });
    await http.injectFault({ kind: "status" });
    expect((await api.get("/v1/clusters")).body).toEqual({ error: "internal", message: "Internal error" });
    const res = await api.get("/v1/clusters");
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("unavailable");
  });

  it("route-pattern paths match one route; prefix paths match everything under them", async () => {
    const id = await runningCluster();
    await http.injectFault({ kind: "status", status: 500, path: "/v1/clusters/:cluster_id", count: 5 });
    expect((await api.get(`/v1/clusters/${id}/nodes`)).status).toBe(200);
    expect((await api.get(`/v1/clusters/${id}`)).status).toBe(500);
    await http.clearFaults();
    await http.injectFault({ kind: "status", status: 500, path: `/v1/clusters/${id}`, count: 5 });
    expect((await api.get(`/v1/clusters/${id}/nodes`)).status).toBe(500);
    expect((await api.get("/v1/clusters")).status).toBe(200);
    await http.clearFaults();
    expect((await api.get(`/v1/clusters/${id}`)).status).toBe(200);
  });

  it("a 429 storm answers rate_limited with Retry-After N times", async () => {
    await http.injectFault({ kind: "rate_limit", count: 3, retryAfterSeconds: 7 });
    for (let i = 0; i < 3; i++) {
      const res = await api.get("/v1/clusters");
      expect(res.status).toBe(429);
      expect(res.body.error).toBe("rate_limited");
      expect(res.headers.get("retry-after")).toBe("7");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect((await api.get("/v1/clusters")).status).toBe(200);
  });

  it("a dropped connection gets no response at all; the next request is served", async () => {
    await http.injectFault({ kind: "drop", method: "GET", path: "/v1/clusters" });
    await expect(api.get("/v1/clusters")).rejects.toThrow();
    expect((await api.get("/v1/clusters")).status).toBe(200);
  });

  it("latency delays matching requests and then serves them", async () => {
    const { id } = await http.injectFault({ kind: "latency", latencyMs: 150, path: "/v1/clusters" });
    expect(id).toMatch(/^flt_/);
    const t = performance.now();
    const res = await api.get("/v1/clusters");
    expect(res.status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(140); // a lower bound, not a speed check
    // Unlimited until cleared.
    expect((await api.as(emu.adminToken).get("/_emulator/faults")).body.items[0]).toMatchObject({ kind: "latency", remaining: null });
    await http.clearFaults();
    expect((await api.as(emu.adminToken).get("/_emulator/faults")).body.items).toEqual([]);
  });

  it("faults never touch the control API", async () => {
    await http.injectFault({ kind: "status", status: 500, count: 10 });
    expect(await http.requestCounts()).toEqual({});
    await http.clearFaults();
  });
});
