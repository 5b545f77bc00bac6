/**
 * Shared status polling (src/provider/polling/shared-poll.ts): clusters waited on together in one
 * process are polled with one listing; alone, a cluster is polled with its own GET.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { createClient, type ApiCluster, type ApiClusterList } from "../../../src/client";
import { SharedPoller, sharedPollerFor } from "../../../src/provider/polling/shared-poll";
import { defaultEngineSlots, ENGINE_SPELLS, EngineWaves, noExpectedOperations } from "../../../src/hosts/engine-waves";
import { waitForCluster } from "../../../src/provider/polling/waiter";
import { systemClock } from "@pulumi-cms/contract";
import { eventually } from "../../support/eventually.mjs";
import { clusterProvider, emulatorForProvider, inputs, showProgress, testRuntime } from "../../support/provider";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider({ provisionSeconds: 2, scaleSeconds: 1, deleteSeconds: 1 });
});
afterAll(async () => {
  showProgress(undefined);
  await emu.close();
});
beforeEach(async () => {
  testRuntime().pollers.clear();
  await emu.control.clearFaults();
  await emu.control.resetRequestCounts();
});

describe("shared polling against the emulator (real time)", () => {
  it("creates, scales and deletes several clusters with listings instead of one GET each", async () => {
    // Progress lines on, as in the dynamic-provider host: shared rounds must not list nodes.
    const lines: string[] = [];
    showProgress({ report: (_urn, line) => void lines.push(line) });
    try {
      const names = ["shared-a", "shared-b", "shared-c", "shared-d", "shared-e"];
      const created = await Promise.all(names.map((name) => clusterProvider.create(inputs({ name }))));
      expect(created.map((c) => c.outs.status)).toEqual(names.map(() => "running"));
      let counts = await emu.control.requestCounts();
      expect(counts["POST /v1/clusters"]).toBe(5);
      expect(counts["GET /v1/clusters"]).toBeGreaterThan(0);
      // A 2 s provisioning polled one by one costs ~4 GETs per cluster (20 here) plus node lists.
      // Shared, a round serves all five. The bounds leave room for a loaded machine, where a
      // cluster whose POST returned late may be polled alone once (its own GET and node list).
      expect(counts["GET /v1/clusters/:cluster_id"] ?? 0).toBeLessThanOrEqual(5);
      expect(counts["GET /v1/clusters/:cluster_id/nodes"] ?? 0).toBeLessThanOrEqual(5);
      expect(counts["GET /v1/clusters"]).toBeLessThanOrEqual(8);
      expect(lines.length).toBeGreaterThan(0);

      await emu.control.resetRequestCounts();
      const outs = created.map((c, i) => ({ ...c.outs, __provider: inputs().__provider, name: names[i] }));
      const updated = await Promise.all(
        created.map((c, i) => clusterProvider.update(c.id, outs[i], inputs({ name: names[i], workers: 3 }))),
      );
      expect(updated.map((u) => [u.outs.status, u.outs.workers])).toEqual(names.map(() => ["running", 3]));
      counts = await emu.control.requestCounts();
      expect(counts["PATCH /v1/clusters/:cluster_id"]).toBe(5);
      expect(counts["GET /v1/clusters/:cluster_id/nodes"] ?? 0).toBeLessThanOrEqual(5);

      await emu.control.resetRequestCounts();
      await Promise.all(created.map((c, i) => clusterProvider.delete(c.id, outs[i])));
      expect((await emu.control.clusters()).filter((c) => names.includes(c.name))).toEqual([]);
      counts = await emu.control.requestCounts();
      expect(counts["DELETE /v1/clusters/:cluster_id"]).toBe(5);
      // Seen listed while deleting, then missing from a one-page listing: gone, without polling
      // each one to its 404 (one by one, a 1 s deletion costs 2-3 GETs per cluster).
      expect(counts["GET /v1/clusters/:cluster_id"] ?? 0).toBeLessThanOrEqual(5);
    } finally {
      showProgress(undefined);
    }
  });

  it("polls a cluster waited on alone with its own GET", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token });
    const { id } = await client.createCluster({ name: "alone", control_planes: 1, workers: 1, node_size: "small" });
    await emu.control.resetRequestCounts();
    const cluster = await waitForCluster({ client, id, target: "running", timeoutMs: 30_000, pollers: testRuntime() });
    expect(cluster?.status).toBe("running");
    const counts = await emu.control.requestCounts();
    expect(counts["GET /v1/clusters"]).toBeUndefined();
    expect(counts["GET /v1/clusters/:cluster_id"]).toBeGreaterThan(0);
  });

  it("keeps waiting through a failed listing, like through a failed GET", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token, minRetryDelayMs: 10, maxRetryDelayMs: 20, retries: 0 });
    const ids = await Promise.all(
      ["blip-a", "blip-b"].map(
        async (name) => (await client.createCluster({ name, control_planes: 1, workers: 1, node_size: "small" })).id,
      ),
    );
    await emu.control.injectFault({ kind: "status", status: 503, method: "GET", path: "/v1/clusters", count: 1 });
    const results = await Promise.all(
      ids.map((id) => waitForCluster({ client, id, target: "running", timeoutMs: 30_000, pollers: testRuntime() })),
    );
    expect(results.map((c) => c?.status)).toEqual(["running", "running"]);
    expect((await emu.control.requestCounts())["GET /v1/clusters"]).toBeGreaterThanOrEqual(2);
  });

  it("reports a cluster deleted behind the waiter's back as gone", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token });
    const ids = await Promise.all(
      ["vanish-a", "vanish-b"].map(
        async (name) => (await client.createCluster({ name, control_planes: 1, workers: 1, node_size: "small" })).id,
      ),
    );
    const waits = ids.map((id) =>
      waitForCluster({ client, id, target: "running", timeoutMs: 30_000, pollers: testRuntime() }).then(
        (c) => c?.status,
        (e: Error & { reason?: string }) => e.reason,
      ),
    );
    await emu.control.resetRequestCounts();
    // Delete once the waiters have looked at least once.
    await eventually(async () => {
      const counts = await emu.control.requestCounts();
      return (counts["GET /v1/clusters"] ?? 0) + (counts["GET /v1/clusters/:cluster_id"] ?? 0) > 0;
    });
    await emu.control.deleteCluster(ids[0]);
    // Deleted while waiting for running: "failed" when the deletion is seen, "gone" after it.
    expect(["failed", "gone"]).toContain(await waits[0]);
    expect(await waits[1]).toBe("running");
  });
});

describe("SharedPoller rules (fake client)", () => {
  const cluster = (id: string, status = "provisioning"): ApiCluster => ({ id, name: id, status }) as unknown as ApiCluster;
  function fakeClient(list: () => ApiCluster[], perPage = 100) {
    const calls: string[] = [];
    return {
      calls,
      client: {
        identity: "fake",
        async getCluster(id: string) {
          calls.push(`get ${id}`);
          const c = list().find((x) => x.id === id);
          if (!c) throw Object.assign(new Error("not found"), { name: "NotFoundError", status: 404 });
          return c;
        },
        async listClusters(q: { page?: number; perPage?: number }): Promise<ApiClusterList> {
          calls.push(`list ${q.page}`);
          const all = list();
          const page = q.page ?? 1;
          return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length, page, per_page: perPage };
        },
      },
    };
  }

  it("serves every waiting cluster from one listing, due or not", async () => {
    const f = fakeClient(() => [cluster("a"), cluster("b", "running"), cluster("c")]);
    const poller = new SharedPoller(f.client);
    const [a, b, c] = await Promise.all([poller.observe("a", 10), poller.observe("b", 5_000), poller.observe("c", 20)]);
    expect(f.calls).toEqual(["list 1"]);
    expect([a.cluster.status, b.cluster.status, c.cluster.status]).toEqual(["provisioning", "running", "provisioning"]);
    expect(a.shared && b.shared && c.shared).toBe(true);
  });

  it("uses GETs when the account takes more pages than there are clusters waiting", async () => {
    const many = Array.from({ length: 250 }, (_, i) => cluster(`x${i}`));
    const f = fakeClient(() => many);
    const poller = new SharedPoller(f.client);
    await Promise.all([poller.observe("x1", 0), poller.observe("x2", 0)]);
    expect(f.calls).toEqual(["list 1", "list 2", "list 3"]);
    f.calls.length = 0;
    await Promise.all([poller.observe("x1", 0), poller.observe("x2", 0)]);
    expect(f.calls.sort()).toEqual(["get x1", "get x2"]);
  });

  it("never calls a cluster gone just because a listing misses it the first time", async () => {
    let clusters = [cluster("a"), cluster("b")];
    const f = fakeClient(() => clusters);
    const poller = new SharedPoller(f.client);
    // "z" was never listed (e.g. hidden by the token's scope): its own GET decides.
    const z = poller.observe("z", 0).then(
      () => "found",
      (e: { status?: number }) => e.status,
    );
    await Promise.all([poller.observe("a", 0), poller.observe("b", 0), z]);
    expect(await z).toBe(404);
    expect(f.calls).toEqual(["list 1", "get z"]);
    // "a" was listed before and is missing from a one-page listing now: gone, no GET.
    clusters = [cluster("b")];
    f.calls.length = 0;
    const gone = poller.observe("a", 0).then(
      () => "found",
      (e: { status?: number; name?: string }) => [e.status, e.name],
    );
    await Promise.all([gone, poller.observe("b", 0)]);
    expect(await gone).toEqual([404, "NotFoundError"]);
    expect(f.calls).toEqual(["list 1"]);
  });

  const { gatherMs: GATHER_MS, slotsFullMs: SLOTS_FULL_MS } = ENGINE_SPELLS;
  /** A pause shorter than the dynamic host's quiet spells, in which a first round that did not wait would go. */
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.min(GATHER_MS, SLOTS_FULL_MS) / 4));
  /** The dynamic host's waves, on an expected set of their own. */
  const dynamicWaves = (slots?: number) => {
    const expected = noExpectedOperations();
    return new EngineWaves(() => expected, ENGINE_SPELLS, testRuntime().pollers, slots);
  };

  it("holds a wave's first polls until its requests are answered, then serves them with one listing", async () => {
    const f = fakeClient(() => [cluster("a", "running"), cluster("b", "running")]);
    const poller = new SharedPoller(f.client);
    let answerB: () => void = () => undefined;
    const bSent = poller.sending(() => new Promise<void>((resolve) => (answerB = resolve)));
    // a's request was answered; b's is still on its way.
    const a = poller.observe("a", 60_000, { first: true });
    await pause();
    expect(f.calls).toEqual([]);
    answerB();
    await bSent;
    const b = poller.observe("b", 60_000, { first: true });
    const seen = await Promise.all([a, b]);
    expect(f.calls).toEqual(["list 1"]);
    expect(seen.map((o) => [o.cluster.status, o.shared])).toEqual([
      ["running", true],
      ["running", true],
    ]);
  });

  it("makes a first poll at once when no other operation is under way or expected", async () => {
    const f = fakeClient(() => [cluster("a", "running")]);
    const poller = new SharedPoller(f.client);
    await poller.sending(async () => undefined);
    const a = await poller.observe("a", 60_000, { first: true });
    expect(a.cluster.status).toBe("running");
    expect(f.calls).toEqual(["get a"]);
  });

  it("while the engine has operations to come, a first poll waits for a quiet spell so the next one joins it", async () => {
    const f = fakeClient(() => [cluster("a", "running"), cluster("b", "running")]);
    const waves = dynamicWaves();
    const poller = sharedPollerFor(testRuntime(), systemClock, { ...f.client, identity: "fake-expecting" }, waves);
    if (!poller) throw new Error("a listing client has a shared poller");
    const next = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::b";
    waves.checked(next);
    try {
      const a = poller.observe("a", 60_000, { first: true });
      await pause();
      expect(f.calls).toEqual([]);
      // b starts, sends its request and asks: nothing more is expected, so the round goes.
      waves.settled(next);
      await poller.sending(async () => undefined);
      const b = poller.observe("b", 60_000, { first: true });
      await Promise.all([a, b]);
      expect(f.calls).toEqual(["list 1"]);
    } finally {
      waves.settled(next);
      testRuntime().pollers.clear();
    }
  });

  it("while a checked operation does not start, a first poll waits for a short quiet spell only: the engine's slots are full", async () => {
    const f = fakeClient(() => [cluster("a", "running"), cluster("b", "running")]);
    const waves = dynamicWaves();
    const poller = sharedPollerFor(testRuntime(), systemClock, { ...f.client, identity: "fake-slots-full" }, waves);
    if (!poller) throw new Error("a listing client has a shared poller");
    const blocked = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::blocked";
    // Something happens on the connection every 90 ms: more than SLOTS_FULL_MS apart, less than
    // GATHER_MS, so only the short spell can come.
    expect(SLOTS_FULL_MS).toBeLessThan(90);
    expect(GATHER_MS).toBeGreaterThan(90);
    const busy = setInterval(() => poller.touch(), 90);
    try {
      const wave = Promise.all(["a", "b"].map((id) => poller.observe(id, 60_000, { first: true })));
      // Checked, and then it does not start: it waits for one of the slots a and b hold.
      waves.checked(blocked);
      await wave;
      expect(f.calls).toEqual(["list 1"]);
    } finally {
      clearInterval(busy);
      waves.settled(blocked);
      testRuntime().pollers.clear();
    }
  });

  it("once a wave has shown the engine's slots, a wave that fills them goes without waiting for a quiet spell", async () => {
    const f = fakeClient(() => ["a", "b", "c", "d", "e", "f"].map((id) => cluster(id, "running")));
    const waves = dynamicWaves();
    const poller = sharedPollerFor(testRuntime(), systemClock, { ...f.client, identity: "fake-slots" }, waves);
    if (!poller) throw new Error("a listing client has a shared poller");
    const more = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::more";
    waves.checked(more);
    try {
      // The first wave of three: its round waits for the quiet spell (operations are expected).
      await Promise.all(["a", "b", "c"].map((id) => poller.observe(id, 60_000, { first: true })));
      expect(f.calls).toEqual(["list 1"]);
      // The next three fill the same slots: their round goes at once.
      let done = false;
      const wave = Promise.all(["d", "e", "f"].map((id) => poller.observe(id, 60_000, { first: true }))).then(() => (done = true));
      await pause();
      expect(done).toBe(true);
      await wave;
      expect(f.calls).toEqual(["list 1", "list 1"]);
    } finally {
      waves.settled(more);
      testRuntime().pollers.clear();
    }
  });

  it("before any wave, a wave as large as the CLI's default --parallel goes without waiting for a quiet spell", async () => {
    const f = fakeClient(() => ["a", "b", "c"].map((id) => cluster(id, "running")));
    const waves = dynamicWaves(3);
    const poller = new SharedPoller(f.client, systemClock, waves);
    const more = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::more";
    waves.checked(more);
    try {
      let done = false;
      const wave = Promise.all(["a", "b", "c"].map((id) => poller.observe(id, 60_000, { first: true }))).then(() => (done = true));
      await pause();
      expect(done).toBe(true);
      await wave;
      expect(f.calls).toEqual(["list 1"]);
    } finally {
      waves.settled(more);
    }
  });

  it("takes the CLI's default --parallel from PULUMI_PARALLEL, else 4 per CPU", () => {
    expect(defaultEngineSlots({ PULUMI_PARALLEL: "5" }, 2)).toBe(5);
    expect(defaultEngineSlots({}, 2)).toBe(8);
    expect(defaultEngineSlots({ PULUMI_PARALLEL: "0" }, 3)).toBe(12);
    expect(defaultEngineSlots({ PULUMI_PARALLEL: "many" }, 1)).toBe(4);
  });

  const goneOf = (poller: SharedPoller) => (id: string) =>
    poller.observe(id, 0, { first: true, gone: true }).then(
      (o) => o.cluster.status,
      (e: { status?: number }) => e.status,
    );

  it("polls a cluster after its DELETE with its own GET at once, while the wave's other DELETEs are out, when the service deletes at once", async () => {
    const f = fakeClient(() => []);
    const poller = new SharedPoller(f.client);
    const gone = goneOf(poller);
    let answerB: () => void = () => undefined;
    const bSent = poller.sending(() => new Promise<void>((resolve) => (answerB = resolve)));
    // a's DELETE was answered, b's is still out: a's first poll does not wait for it.
    expect(await gone("a")).toBe(404);
    expect(f.calls).toEqual(["get a"]);
    answerB();
    await bSent;
    expect(await Promise.all([gone("b"), gone("c")])).toEqual([404, 404]);
    expect(f.calls.sort()).toEqual(["get a", "get b", "get c"]);
  });

  it("while nothing shows how the service deletes, first polls that come together send one GET to find out, then share a listing", async () => {
    const f = fakeClient(() => ["a", "b", "c"].map((id) => cluster(id, "deleting")));
    const poller = new SharedPoller(f.client);
    const gone = goneOf(poller);
    expect(await Promise.all([gone("a"), gone("b"), gone("c")])).toEqual(["deleting", "deleting", "deleting"]);
    expect(f.calls).toEqual(["get a", "list 1"]);
  });

  it("after a first poll that found its cluster still deleting, a wave's first polls share a listing", async () => {
    const deleting = new Set(["a", "b", "c"]);
    const f = fakeClient(() => [...deleting].map((id) => cluster(id, "deleting")));
    const poller = new SharedPoller(f.client);
    const gone = goneOf(poller);
    expect(await gone("a")).toBe("deleting");
    f.calls.length = 0;
    expect(await Promise.all([gone("b"), gone("c")])).toEqual(["deleting", "deleting"]);
    expect(f.calls).toEqual(["list 1"]);
  });

  it("after listings that showed none of the clusters on their first poll, polls such clusters with their own GET", async () => {
    // Learnt from a listing: a service that takes its time, then one that deletes at once.
    const listed = new Set(["a", "b"]);
    const f = fakeClient(() => [...listed].map((id) => cluster(id, "deleting")));
    const poller = new SharedPoller(f.client);
    const gone = goneOf(poller);
    expect(await gone("a")).toBe("deleting");
    listed.clear();
    expect(await Promise.all([gone("b"), gone("c")])).toEqual([404, 404]);
    f.calls.length = 0;
    expect(await Promise.all([gone("d"), gone("e")])).toEqual([404, 404]);
    expect(f.calls.sort()).toEqual(["get d", "get e"]);
  });

  it("shares one poller per client identity", () => {
    const f = fakeClient(() => []);
    const pollerOf = (client: unknown) => sharedPollerFor(testRuntime(), systemClock, client);
    expect(pollerOf(f.client)).toBe(pollerOf({ ...f.client }));
    expect(pollerOf({ getCluster: f.client.getCluster })).toBeUndefined();
    const a = createClient({ endpoint: "http://127.0.0.1:1", token: "token-aaaaaaaa" });
    const b = createClient({ endpoint: "http://127.0.0.1:1", token: "token-aaaaaaaa" });
    const c = createClient({ endpoint: "http://127.0.0.1:1", token: "token-bbbbbbbb" });
    expect(pollerOf(a)).toBe(pollerOf(b));
    expect(pollerOf(a)).not.toBe(pollerOf(c));
    expect(a.identity).not.toContain("token-aaaaaaaa");
  });
});
