import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../packages/emulator/src";
import { ConflictError, NetworkError, RateLimitedError, ServerError, UnprovenOwnershipError } from "../../src/client";
import { Api } from "../support/emulator";
import { SMALL, client, emulator, lossyProxy, rejection, waitForStatus, type LossyProxy } from "../support/client";

let emu: RunningEmulator;
let proxy: LossyProxy;
beforeAll(async () => {
  emu = await emulator();
  proxy = await lossyProxy(emu.url);
});
afterAll(async () => {
  await proxy?.close();
  await emu?.close();
});
beforeEach(async () => {
  await emu.control.reset();
  proxy.reset();
});

const count = async (route: string) => (await emu.control.requestCounts())[route] ?? 0;
const GET_CLUSTER = "GET /v1/clusters/:cluster_id";
const LIST = "GET /v1/clusters";
const CREATE = "POST /v1/clusters";
const PATCH = "PATCH /v1/clusters/:cluster_id";
const DELETE = "DELETE /v1/clusters/:cluster_id";

async function running(name: string): Promise<string> {
  const { id } = await client(emu).createCluster({ name, ...SMALL });
  await waitForStatus(emu, id, "running");
  await emu.control.resetRequestCounts();
  return id;
}

describe("idempotent requests are retried", () => {
  it.each([500, 502, 503] as const)("recovers a GET from a burst of three %i answers: 4 requests", async (status) => {
    const id = await running(`burst-${status}`);
    await emu.control.injectFault({ kind: "status", status, method: "GET", path: "/v1/clusters/:cluster_id", count: 3 });
    const c = client(emu);
    expect((await c.getCluster(id)).id).toBe(id);
    expect(await count(GET_CLUSTER)).toBe(4);
    expect(c.retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(c.retries.every((r) => r.method === "GET" && r.path === `/v1/clusters/${id}` && r.reason.includes(`status ${status}`))).toBe(
      true,
    );
  });

  it("recovers a 429 storm, waiting as long as Retry-After says", async () => {
    await emu.control.injectFault({ kind: "rate_limit", method: "GET", path: "/v1/clusters", count: 2, retryAfterSeconds: 1 });
    // The limiter is off so that the only wait is the retry's: this test is about Retry-After.
    // The waits are slept on a manual clock: virtual time, measured exactly.
    const clock = new ManualClock(Date.now());
    const before = clock.now();
    const c = client(emu, { limiter: false, clock });
    expect((await c.listClusters()).items).toEqual([]);
    expect(await count(LIST)).toBe(3);
    expect(c.retries.map((r) => r.delayMs)).toEqual([1000, 1000]);
    expect(clock.now() - before).toBe(2000);
    expect(c.retries.every((r) => r.reason.includes("Retry-After"))).toBe(true);
  });

  it("a 5xx right after a 429 storm backs off as a first failure, not as the third", async () => {
    await emu.control.injectFault({ kind: "rate_limit", method: "GET", path: "/v1/clusters", count: 2, retryAfterSeconds: 1 });
    await emu.control.injectFault({ kind: "status", status: 500, method: "GET", path: "/v1/clusters", count: 1 });
    const c = client(emu, { limiter: false, minRetryDelayMs: 100, maxRetryDelayMs: 10_000, clock: new ManualClock(Date.now()) });
    expect((await c.listClusters()).items).toEqual([]);
    expect(await count(LIST)).toBe(4);
    expect(c.retries.map((r) => r.reason.split(" ")[0])).toEqual(["rate", "rate", "status"]);
    // Backoff of a first failure is at most minRetryDelayMs; as the third it would be 200-400 ms.
    expect(c.retries[2].delayMs).toBeLessThanOrEqual(100);
  });

  it("recovers dropped connections on GET", async () => {
    await emu.control.injectFault({ kind: "drop", method: "GET", path: "/v1/clusters", count: 2 });
    const c = client(emu);
    expect((await c.listClusters()).items).toEqual([]);
    expect(await count(LIST)).toBe(3);
    expect(c.retries.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^no response \(E[A-Z]+\)/),
      expect.stringMatching(/^no response/),
    ]);
  });

  it("gives up after the configured retries with the last error", async () => {
    await emu.control.injectFault({ kind: "status", status: 502, method: "GET", path: "/v1/clusters", count: 10 });
    const c = client(emu, { retries: 2 });
    const e = await rejection(c.listClusters());
    expect(e).toBeInstanceOf(ServerError);
    expect(e).toMatchObject({ status: 502, code: "bad_gateway" });
    expect(await count(LIST)).toBe(3);
    await emu.control.clearFaults();
  });

  it("surfaces a RateLimitedError with the server's wait when retries run out", async () => {
    await emu.control.injectFault({ kind: "rate_limit", method: "GET", path: "/v1/clusters", count: 1, retryAfterSeconds: 7 });
    const e = await rejection(client(emu, { retries: 0, limiter: false }).listClusters());
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as unknown as RateLimitedError).retryAfterMs).toBe(7000);
    expect(e.message).toContain("7 s");
  });

  it("re-sends a PATCH whose reply was lost and returns the cluster", async () => {
    const id = await running("patch-drop");
    await emu.control.injectFault({ kind: "drop", method: "PATCH", count: 1 });
    const c = client(emu);
    const updated = await c.updateCluster(id, { workers: 2 });
    expect(updated).toMatchObject({ id, workers: 2 });
    expect(await count(PATCH)).toBe(2);
  });

  it("a PATCH processed but unanswered is recognised on the retry's 409 instead of failing", async () => {
    const id = await running("patch-late");
    // The emulator applies the PATCH (the cluster starts scaling), the reply is lost on the way
    // back; the re-sent PATCH is refused with 409, so the client checks the cluster instead.
    proxy.loseReplyOf("PATCH /v1/clusters/");
    const c = client(emu, { endpoint: proxy.url });
    const updated = await c.updateCluster(id, { workers: 4 });
    expect(proxy.lost()).toBe(1);
    expect(updated).toMatchObject({ id, workers: 4 });
    expect(await count(PATCH)).toBe(2);
    expect(await count(GET_CLUSTER)).toBe(1);
  });

  it("a PATCH refused with 409 after a lost reply is still an error when the cluster does not match", async () => {
    const id = await running("patch-409");
    await client(emu).updateCluster(id, { workers: 3 }); // now scaling
    await emu.control.injectFault({ kind: "drop", method: "PATCH", count: 1 });
    const e = await rejection(client(emu).updateCluster(id, { workers: 5 }));
    expect(e).toBeInstanceOf(ConflictError);
    expect(await count(PATCH)).toBe(3);
    expect(await count(GET_CLUSTER)).toBe(1);
  });

  it("a DELETE processed but unanswered is success, whether the retry finds it deleting or gone", async () => {
    for (const deleteSeconds of [60, 0.05]) {
      await emu.control.setTimings({ deleteSeconds });
      const id = await running(`delete-late-${String(deleteSeconds).replace(".", "-")}`);
      proxy.loseReplyOf("DELETE /v1/clusters/");
      // With 0.05 s the cluster is gone before the retry (404 means done); with 60 s it is
      // still deleting (204 again).
      const c = client(emu, { endpoint: proxy.url, minRetryDelayMs: 200, maxRetryDelayMs: 200 });
      await expect(c.deleteCluster(id)).resolves.toBeUndefined();
      expect(proxy.lost()).toBe(1);
      expect(await count(DELETE)).toBe(2);
      await emu.control.reset();
      proxy.reset();
    }
    await emu.control.setTimings({ deleteSeconds: 0.1 });
  });
});

describe("creating a cluster never duplicates it", () => {
  it("connection dropped before the server processed it: looks up, finds nothing, re-sends: exactly one cluster", async () => {
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const c = client(emu);
    const created = await c.createCluster({ name: "dropped", ...SMALL });
    const all = await emu.control.clusters();
    expect(all.map((x) => x.id)).toEqual([created.id]);
    expect(await count(CREATE)).toBe(2);
    // No reply at all: it looked for the settle window (200 ms in these tests) before re-sending.
    expect(await count(LIST)).toBeGreaterThanOrEqual(2);
    expect(c.retries[0]!.reason).toMatch(/^no response/);
  });

  it("no reply because the server is still working on it: keeps looking, finds it (seeded name), never re-sends", async () => {
    // The emulator holds the POST for 1.5 s before creating the cluster; the client gives up on
    // the reply after 300 ms. A lookup right away finds nothing, yet the cluster is on its way.
    await emu.control.injectFault({ kind: "latency", latencyMs: 1_500, method: "POST", path: "/v1/clusters", count: 1 });
    const c = client(emu, { timeoutMs: 300, settleWindowMs: 5_000 });
    const created = await c.createCluster({ name: "slow-server", ...SMALL }, { nameProof: "seeded" });
    const all = await emu.control.clusters();
    expect(all.map((x) => x.id)).toEqual([created.id]);
    expect(await count(CREATE)).toBe(1);
    expect(await count(LIST)).toBeGreaterThanOrEqual(2);
  });

  it("no reply and nothing appears within the settle window: the POST is sent again once", async () => {
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const c = client(emu, { settleWindowMs: 600 });
    const started = Date.now();
    const created = await c.createCluster({ name: "settled", ...SMALL });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect((await emu.control.clusters()).map((x) => x.id)).toEqual([created.id]);
    expect(await count(CREATE)).toBe(2);
  });

  it("processed but the reply was lost, with a seeded name: finds the created cluster, does not re-send", async () => {
    proxy.loseReplyOf("POST /v1/clusters ");
    const c = client(emu, { endpoint: proxy.url });
    const created = await c.createCluster({ name: "lost-reply", ...SMALL }, { nameProof: "seeded" });
    expect(proxy.lost()).toBe(1);
    const all = await emu.control.clusters();
    expect(all.length).toBe(1);
    expect(created.id).toBe(all[0]!.id);
    expect(created).toMatchObject({ name: "lost-reply", status: "provisioning", workers: 1 });
    expect(await count(CREATE)).toBe(1);
    expect(await count(LIST)).toBe(1);
  });

  it("processed but the reply was lost, with a name that proves nothing: names the cluster, takes none, does not re-send", async () => {
    proxy.loseReplyOf("POST /v1/clusters ");
    const e = await rejection(client(emu, { endpoint: proxy.url }).createCluster({ name: "lost-reply", ...SMALL }));
    const all = await emu.control.clusters();
    expect(all.length).toBe(1);
    expect(e).toBeInstanceOf(UnprovenOwnershipError);
    expect((e as unknown as UnprovenOwnershipError).candidates.map((c) => c.id)).toEqual([all[0]!.id]);
    expect(e.message).toContain(`${all[0]!.id} ("lost-reply", created ${all[0]!.created_at}`);
    expect(e.message).toMatch(/None was taken, and no cluster was created in its place/);
    expect(await count(CREATE)).toBe(1);
  });

  it("a lost reply while another stack creates the same name: its cluster is named, never taken", async () => {
    // Our POST is cut before the server processes it; 300 ms later another process creates a
    // cluster with the same name and shape (not through this process, so nothing here claims it).
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const ours = rejection(client(emu, { settleWindowMs: 5_000 }).createCluster({ name: "shared-name", ...SMALL }));
    await new Promise((r) => setTimeout(r, 300));
    const theirs = await new Api(emu.url, emu.token).post("/v1/clusters", { name: "shared-name", ...SMALL });
    expect(theirs.status).toBe(201);
    const e = await ours;
    expect(e).toBeInstanceOf(UnprovenOwnershipError);
    expect((e as unknown as UnprovenOwnershipError).candidates.map((c) => c.id)).toEqual([theirs.body.id]);
    expect((await emu.control.clusters()).map((x) => x.id)).toEqual([theirs.body.id]);
  });

  it("a lost reply with a seeded name and an older cluster of another name: re-sends, one cluster", async () => {
    await client(emu).createCluster({ name: "other", ...SMALL });
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const created = await client(emu).createCluster({ name: "seeded-x", ...SMALL }, { nameProof: "seeded" });
    expect((await emu.control.clusters()).filter((x) => x.name === "seeded-x").map((x) => x.id)).toEqual([created.id]);
  });

  it("does not mistake an older cluster with the same name for the lost one", async () => {
    const older = await client(emu).createCluster({ name: "same-name", ...SMALL });
    // Let the older one be clearly older than our request on the server's clock.
    await new Promise((r) => setTimeout(r, 2500));
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const c = client(emu);
    const created = await c.createCluster({ name: "same-name", ...SMALL });
    expect(created.id).not.toBe(older.id);
    expect((await emu.control.clusters()).map((x) => x.id).sort()).toEqual([older.id, created.id].sort());
    expect(await count(CREATE)).toBe(3);
  });

  it("two same-named creates at once, one reply lost: each gets its own cluster", async () => {
    // B's POST is cut before processing; A's lands meanwhile. B's lookup sees A's cluster (same
    // name, same shape, created after B started) but it is A's: B must re-send, not adopt it.
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    const b = client(emu, { minRetryDelayMs: 300, maxRetryDelayMs: 300 }).createCluster({ name: "pair", ...SMALL });
    await new Promise((r) => setTimeout(r, 50));
    const a = await client(emu).createCluster({ name: "pair", ...SMALL });
    const bCreated = await b;
    expect(bCreated.id).not.toBe(a.id);
    expect((await emu.control.clusters()).map((x) => x.id).sort()).toEqual([a.id, bCreated.id].sort());
  });

  it("a 500 (outcome unknown) is checked before re-sending: exactly one cluster", async () => {
    await emu.control.injectFault({ kind: "status", status: 500, method: "POST", path: "/v1/clusters", count: 1 });
    const c = client(emu);
    const created = await c.createCluster({ name: "after-500", ...SMALL });
    expect((await emu.control.clusters()).map((x) => x.id)).toEqual([created.id]);
    expect(await count(CREATE)).toBe(2);
    expect(await count(LIST)).toBe(1);
  });

  it("a 503 and a 429 were not processed: re-sent directly, no lookup", async () => {
    await emu.control.injectFault({ kind: "status", status: 503, method: "POST", path: "/v1/clusters", count: 1 });
    await emu.control.injectFault({ kind: "rate_limit", method: "POST", path: "/v1/clusters", count: 1, retryAfterSeconds: 0 });
    const c = client(emu, { limiter: false });
    const created = await c.createCluster({ name: "refused", ...SMALL });
    expect((await emu.control.clusters()).map((x) => x.id)).toEqual([created.id]);
    expect(await count(CREATE)).toBe(3);
    expect(await count(LIST)).toBe(0);
  });

  it("a lost reply with the lookup failing too ends in an error, never a blind re-send", async () => {
    await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
    await emu.control.injectFault({ kind: "drop", method: "GET", path: "/v1/clusters", count: 5 });
    const c = client(emu, { retries: 2 });
    const e = await rejection(c.createCluster({ name: "unsure", ...SMALL }));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).toMatchObject({ method: "GET", path: "/v1/clusters" });
    expect(await count(CREATE)).toBe(1);
    await emu.control.clearFaults();
  });
});
