/**
 * Shared reads (src/provider/polling/shared-reads.ts): reads of one connection arriving together are
 * answered from shared list pages, each cluster falling back to its own GET whenever the pages
 * cannot tell; the result is always what a GET would give.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { createClient, type ApiCluster, type ApiClusterList, type CmsClient } from "../../../src/client";
import { forgetListings, sharedLister } from "../../../src/provider/polling/listings";
import { AT_ONCE, SharedPoller } from "../../../src/provider/polling/shared-poll";
import { SharedReader } from "../../../src/provider/polling/shared-reads";
import { ManualClock, MAX_PER_PAGE, systemClock } from "@pulumi-cms/contract";
import { clusterProvider, emulatorForProvider, inputs, rejection, testRuntime } from "../../support/provider";

const LIST = "GET /v1/clusters";
const GET = "GET /v1/clusters/:cluster_id";
const KUBECONFIG = "GET /v1/clusters/:cluster_id/kubeconfig";

let emu: RunningEmulator;
let client: CmsClient;
beforeAll(async () => {
  emu = await emulatorForProvider({ provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0 });
  client = createClient({ endpoint: emu.url, token: emu.token, minRetryDelayMs: 10, maxRetryDelayMs: 50 });
});
afterAll(() => emu.close());
beforeEach(async () => {
  testRuntime().readers.clear();
  await emu.control.reset();
});

async function make(count: number, prefix = "r"): Promise<ApiCluster[]> {
  const out: ApiCluster[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = await client.createCluster({ name: `${prefix}${i}`, control_planes: 1, workers: 1, node_size: "small" });
    out.push(await client.getCluster(id));
  }
  await emu.control.resetRequestCounts();
  return out;
}

/** State of a created cluster, as `read` receives it on refresh. */
function props(c: ApiCluster): Record<string, unknown> {
  return { ...inputs({ name: c.name, workers: c.workers }), status: c.status, createdAt: c.created_at };
}

const counts = () => emu.control.requestCounts();

describe("reads through the provider", () => {
  it("reads of 30 clusters arriving together cost one list page and one kubeconfig each", async () => {
    const clusters = await make(30);
    const results = await Promise.all(clusters.map((c) => clusterProvider.read(c.id, props(c))));
    expect(results.map((r) => r.id)).toEqual(clusters.map((c) => c.id));
    expect(results.every((r) => typeof r.props?.kubeconfig === "string")).toBe(true);
    expect(await counts()).toEqual({ [LIST]: 1, [KUBECONFIG]: 30 });
  });

  it("a cluster missing from the page leaves the state only after its own GET answers 404", async () => {
    const [kept, gone] = await make(2);
    await emu.control.deleteCluster(gone.id);
    const [a, b] = await Promise.all([clusterProvider.read(kept.id, props(kept)), clusterProvider.read(gone.id, props(gone))]);
    expect(a.id).toBe(kept.id);
    expect(b).toEqual({});
    expect(await counts()).toMatchObject({ [LIST]: 1, [GET]: 1 });
  });

  it("a read after this process changed the cluster is not answered from older pages", async () => {
    const [c] = await make(1);
    await clusterProvider.read(c.id, props(c));
    await clusterProvider.update(c.id, { ...props(c), kubeconfig: "k" }, inputs({ name: c.name, workers: 3 }));
    const after = await clusterProvider.read(c.id, props(c));
    expect(after.props?.workers).toBe(3);
  });

  it("a failed listing falls back to one GET per cluster, with the same result", async () => {
    const clusters = await make(3);
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters", exact: true, kind: "status", status: 500, count: 100 });
    const results = await Promise.all(clusters.map((c) => clusterProvider.read(c.id, props(c))));
    expect(results.map((r) => r.props?.name)).toEqual(clusters.map((c) => c.name));
    expect((await counts())[GET]).toBe(3);
  });
});

describe("SharedReader against the emulator", () => {
  it("a token scoped to one cluster lists only it: each other cluster gets its own GET, with the GET's answer", async () => {
    const [mine, other] = await make(2);
    await emu.control.addToken({ token: "tok-scoped", permissions: ["read"], scope: `cluster:${mine.id}`, plan: "enterprise" });
    const scoped = new SharedReader(createClient({ endpoint: emu.url, token: "tok-scoped" }));
    const [a, b] = await Promise.allSettled([scoped.read(mine.id), scoped.read(other.id)]);
    expect(a).toMatchObject({ status: "fulfilled", value: { id: mine.id } });
    // Hidden from this token: the GET's own refusal, never "gone" because the list lacked it.
    expect(b.status).toBe("rejected");
    expect(await counts()).toMatchObject({ [LIST]: 1, [GET]: 1 });
  });

  it("readers of different tokens never answer from each other's pages", async () => {
    const [c] = await make(1);
    await emu.control.addToken({ token: "tok-second", permissions: ["read"], scope: "*", plan: "enterprise" });
    await Promise.all([
      clusterProvider.read(c.id, props(c)),
      clusterProvider.read(c.id, { ...props(c), connection: { endpoint: emu.url, token: "tok-second" } }),
    ]);
    expect((await counts())[LIST]).toBe(2);
  });

  it("walks no more pages than there are reads: one read in a 3-page account is one list page and one GET", async () => {
    const clusters = await make(250);
    const reader = new SharedReader(client);
    expect((await reader.read(clusters[249].id)).id).toBe(clusters[249].id);
    expect(await counts()).toEqual({ [LIST]: 1, [GET]: 1 });
  });

  it("reads spread over pages share each page once", async () => {
    const clusters = await make(250);
    const reader = new SharedReader(client);
    const wanted = [0, 120, 240, 249, 5, 130].map((i) => clusters[i]);
    const read = await Promise.all(wanted.map((c) => reader.read(c.id)));
    expect(read.map((c) => c.id)).toEqual(wanted.map((c) => c.id));
    expect(await counts()).toEqual({ [LIST]: 3 });
  });

  it("a pass paced by the rate limit keeps its pages while reads keep coming", async () => {
    const clusters = await make(10);
    const clock = new ManualClock(0);
    const reader = new SharedReader(client, clock);
    for (const c of clusters) {
      expect((await reader.read(c.id)).id).toBe(c.id);
      clock.advance(3_000);
    }
    expect(await counts()).toEqual({ [LIST]: 1 });
  });

  it("a pause between reads ends the pass: the next read lists again", async () => {
    const [c] = await make(1);
    const clock = new ManualClock(0);
    const reader = new SharedReader(client, clock);
    await reader.read(c.id);
    await emu.control.scale(c.id, 5);
    clock.advance(60_000);
    expect((await reader.read(c.id)).workers).toBe(5);
    expect((await counts())[LIST]).toBe(2);
  });
});

describe("SharedReader, list variants a service may answer with", () => {
  const full = (id: string): ApiCluster => ({
    id,
    name: id,
    status: "running",
    phase: "managed",
    control_planes: 1,
    workers: 1,
    node_size: "small",
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    node_count: 2,
    endpoint: "https://k.example:6443",
    kubernetes_version: "v1.31.0",
  });
  function fake(items: Array<Partial<ApiCluster>>, extra: Partial<ApiClusterList> = {}) {
    const calls: string[] = [];
    return {
      calls,
      client: {
        identity: "fake",
        async getCluster(id: string) {
          calls.push(`get ${id}`);
          return full(id);
        },
        async listClusters(q: { page?: number }) {
          calls.push(`list ${q.page}`);
          return { items: items as ApiCluster[], page: q.page ?? 1, ...extra } as ApiClusterList;
        },
      },
    };
  }

  it("abbreviated list items (no endpoint, node_count, version) are read with a GET", async () => {
    const { id, name, status, workers } = full("cls_a");
    const { client: c, calls } = fake([{ id, name, status, workers }], { total: 1, per_page: 100 });
    expect(await new SharedReader(c).read(id)).toEqual(full(id));
    expect(calls).toEqual(["list 1", `get ${id}`]);
  });

  it("a list without total or per_page counts as one page", async () => {
    const { client: c, calls } = fake([full("cls_a")]);
    const reader = new SharedReader(c);
    await Promise.all([reader.read("cls_a"), reader.read("cls_b")]);
    expect(calls).toEqual(["list 1", "get cls_b"]);
  });

  it("a GET's error reaches the caller unchanged", async () => {
    const { client: c } = fake([]);
    c.getCluster = async () => {
      throw new Error("boom");
    };
    expect((await rejection(new SharedReader(c).read("cls_x"))).message).toBe("boom");
  });
});

/** Every listing answers 300 ms late, so requests sent meanwhile find it in flight. */
async function slowListings(): Promise<void> {
  await emu.control.injectFault({ kind: "latency", latencyMs: 300, method: "GET", path: "/v1/clusters", exact: true });
  await emu.control.resetRequestCounts();
}

describe("shared listings (src/provider/polling/listings.ts): one listing for whoever lists the connection meanwhile", () => {
  it("a refresh read and a poll round that list the connection at the same time send one listing", async () => {
    const a = await client.createCluster({ name: "listed-a", control_planes: 1, workers: 1, node_size: "small" });
    const b = await client.createCluster({ name: "listed-b", control_planes: 1, workers: 1, node_size: "small" });
    await slowListings();
    const { listings } = testRuntime();
    const reading = new SharedReader(client, systemClock, listings).read(a.id);
    const poller = new SharedPoller(client, systemClock, AT_ONCE, listings);
    const [read, ...polled] = await Promise.all([reading, poller.observe(a.id, 0), poller.observe(b.id, 0)]);
    expect(read.id).toBe(a.id);
    expect(polled.map((o) => o.cluster.id)).toEqual([a.id, b.id]);
    expect((await emu.control.requestCounts())[LIST]).toBe(1);
  });

  it("a write of the connection drops the listing in flight: a listing asked for after it is a new request", async () => {
    await slowListings();
    const { listings } = testRuntime();
    const lister = sharedLister(listings, client);
    const query = { page: 1, perPage: MAX_PER_PAGE };
    const first = lister.listClusters(query);
    const joined = lister.listClusters(query);
    forgetListings(listings, client);
    const fresh = lister.listClusters(query);
    await Promise.all([first, joined, fresh]);
    expect(await joined).toBe(await first);
    expect((await emu.control.requestCounts())[LIST]).toBe(2);
  });
});
