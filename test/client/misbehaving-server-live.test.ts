/**
 * The real client against a service that misbehaves on purpose (a node `http` server on
 * loopback): whatever its headers say, no call waits past its deadline, and a listing is complete
 * or fails. Waits run on a ManualClock (the limiter's too), so hours of asked-for waiting show as
 * virtual time instead of stalling the test.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ApiError,
  DEFAULT_CLIENT_OPTIONS,
  DeadlineError,
  NetworkError,
  RateLimiter,
  createClient,
  type ClientOptions,
} from "../../src/client";
import { ManualClock } from "@pulumi-cms/contract";
import { API_CLUSTER } from "../support/fixtures";
import { rejection, scriptedServer, sendJson, type ScriptedServer } from "../support/client";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOKEN = "tok_misbehaving_1";
const cluster = (i: number) => ({ ...API_CLUSTER, id: `cls_${i.toString(16).padStart(16, "0")}`, name: `c${i}` });
const ONE = cluster(1).id;

/** A client of `url` whose every wait (its own and its limiter's) runs on one virtual clock. */
function virtualClient(url: string, over: Partial<ClientOptions> = {}) {
  const clock = new ManualClock(Date.now());
  const limiter = new RateLimiter({ clock });
  const client = createClient({ endpoint: url, token: TOKEN, clock, limiter, ...over });
  return { client, clock, limiter, elapsed: (since: number) => clock.now() - since };
}

describe("waits the service asks for are bounded by the call's deadline", () => {
  it("a 429 asking for Retry-After: 1000000000 fails at once, naming the header, its value and the deadline", async () => {
    server = await scriptedServer((_req, res) =>
      sendJson(res, 429, { error: "rate_limited", message: "slow down" }, { "retry-after": "1000000000" }),
    );
    const { client, clock, elapsed } = virtualClient(server.url, { deadlineMs: 29 * 60_000, deadlineName: "create timeout" });
    const start = clock.now();
    const e = await rejection(client.listClusters());
    expect(server.requests).toHaveLength(1);
    expect(elapsed(start)).toBe(0);
    expect(e.message).toContain("Retry-After: 1000000000 s exceeds the remaining 29m of the create timeout");
    expect(e).toBeInstanceOf(DeadlineError);
  });

  it("without a deadline option, the client's call timeout bounds the wait and is named", async () => {
    server = await scriptedServer((_req, res) =>
      sendJson(res, 503, { error: "unavailable", message: "maintenance" }, { "retry-after": "7200" }),
    );
    const { client, clock, elapsed } = virtualClient(server.url);
    const start = clock.now();
    const e = await rejection(client.getCluster("cls_0000000000000001"));
    expect(server.requests).toHaveLength(1);
    expect(elapsed(start)).toBe(0);
    expect(e.message).toContain(`Retry-After: 7200 s exceeds the remaining 10m of the client's call timeout (callTimeoutMs)`);
    expect(e).toBeInstanceOf(DeadlineError);
    expect(DEFAULT_CLIENT_OPTIONS.callTimeoutMs).toBe(10 * 60_000);
  });

  it("one 429 with an absurd Retry-After does not hold the other callers of the shared limiter", async () => {
    server = await scriptedServer((req, res) => {
      if (req.url?.endsWith("/cls_bad"))
        sendJson(res, 429, { error: "rate_limited", message: "slow down" }, { "retry-after": "1000000000" });
      else sendJson(res, 200, cluster(1));
    });
    const clock = new ManualClock(Date.now());
    const limiter = new RateLimiter({ clock });
    const one = createClient({ endpoint: server.url, token: TOKEN, clock, limiter, deadlineMs: 30 * 60_000 });
    const other = createClient({ endpoint: server.url, token: TOKEN, clock, limiter, deadlineMs: 30 * 60_000 });
    const refused = await rejection(one.getCluster("cls_bad"));
    const start = clock.now();
    expect((await other.getCluster(ONE)).id).toBe(cluster(1).id);
    expect(clock.now() - start).toBe(0);
    expect(refused).toBeInstanceOf(DeadlineError);
  });

  it("a reset centuries away (X-RateLimit-Reset: 9999999999 with Remaining: 0) is unknown, not waited for", async () => {
    server = await scriptedServer((_req, res) =>
      sendJson(res, 200, cluster(1), { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "9999999999" }),
    );
    const { client, clock, elapsed } = virtualClient(server.url);
    await client.getCluster(ONE);
    const start = clock.now();
    await client.getCluster(ONE);
    expect(elapsed(start)).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it("the limiter's hold for a spent window fails at once when it would pass the deadline, naming the headers", async () => {
    server = await scriptedServer((_req, res) =>
      sendJson(res, 200, cluster(1), { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "50" }),
    );
    const { client, clock, elapsed } = virtualClient(server.url, { deadlineMs: 10_000, deadlineName: "update timeout" });
    await client.getCluster(ONE);
    const start = clock.now();
    const e = await rejection(client.getCluster(ONE));
    expect(e.message).toMatch(
      /^CMS API GET \/v1\/clusters\/cls_0000000000000001: the rate limiter's hold of 51s \(the window is spent, X-RateLimit-Remaining: 0, X-RateLimit-Reset: 50\) exceeds the remaining 10s of the update timeout, so it was not sent\.$/,
    );
    expect(server.requests).toHaveLength(1);
    expect(elapsed(start)).toBe(0);
    expect(e).toBeInstanceOf(DeadlineError);
  });

  it("the limiter's 90 s cap is on the total hold: a window said to end in 50 minutes holds a request 90 s, then it goes", async () => {
    server = await scriptedServer((_req, res) =>
      sendJson(res, 200, cluster(1), { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3000" }),
    );
    const { client, clock, elapsed } = virtualClient(server.url);
    await client.getCluster(ONE);
    const start = clock.now();
    await client.getCluster(ONE);
    expect(elapsed(start)).toBe(90_000);
    expect(server.requests).toHaveLength(2);
  });

  it("a back-off that would pass the deadline is not begun: the last answer and the deadline are named", async () => {
    server = await scriptedServer((_req, res) => sendJson(res, 502, { error: "bad_gateway", message: "upstream down" }));
    const { client, clock, elapsed } = virtualClient(server.url, {
      deadlineMs: 3_000,
      deadlineName: "delete timeout",
      minRetryDelayMs: 1_000,
      limiter: false,
    });
    const start = clock.now();
    const e = await rejection(client.getCluster("cls_0000000000000001"));
    expect(elapsed(start)).toBeLessThanOrEqual(3_000);
    expect(e.message).toMatch(
      /failed with 502 bad_gateway: upstream down\..* The back-off of \d+(ms|s) before attempt \d exceeds the remaining/,
    );
    expect(e.message).toContain("of the delete timeout, so it was not retried.");
    expect(server.requests.length).toBeLessThan(9);
    expect(e).toBeInstanceOf(DeadlineError);
  });

  it("a create whose reply was lost looks for its cluster only until the deadline, and is not sent again", async () => {
    server = await scriptedServer((req, res) => {
      if (req.method === "POST")
        req.socket.destroy(); // no reply at all: the server may still be creating it
      else sendJson(res, 200, { items: [], total: 0, page: 1, per_page: 100 });
    });
    const { client, clock, elapsed } = virtualClient(server.url, {
      deadlineMs: 5_000,
      deadlineName: "create timeout",
      settleWindowMs: 30_000,
      limiter: false,
    });
    const start = clock.now();
    const e = await rejection(client.createCluster({ name: "lost", control_planes: 1, workers: 1, node_size: "small" }));
    expect(elapsed(start)).toBe(5_000);
    expect(server.requests.filter((r) => r.startsWith("POST"))).toHaveLength(1);
    expect(e.message).toContain(
      "(settleWindowMs) for the cluster it may have created to show up exceeds the remaining 0ms of the create timeout",
    );
    expect(e).toBeInstanceOf(DeadlineError);
  });
});

describe("a listing is complete or fails", () => {
  it("a service that clamps per_page to 50 without saying so, total 120: all 120 clusters, in 3 pages", async () => {
    const all = Array.from({ length: 120 }, (_, i) => cluster(i));
    server = await scriptedServer((req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? 1);
      sendJson(res, 200, { items: all.slice((page - 1) * 50, page * 50), total: 120, page });
    });
    const client = createClient({ endpoint: server.url, token: TOKEN, limiter: false });
    expect((await client.listAllClusters()).map((c) => c.id)).toEqual(all.map((c) => c.id));
    expect(server.requests).toHaveLength(3);
  });

  it("a service that clamps and says neither total nor per_page: the short first page is checked against the next", async () => {
    const all = Array.from({ length: 70 }, (_, i) => cluster(i));
    server = await scriptedServer((req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? 1);
      sendJson(res, 200, { items: all.slice((page - 1) * 50, page * 50) });
    });
    const client = createClient({ endpoint: server.url, token: TOKEN, limiter: false });
    expect(await client.listAllClusters()).toHaveLength(70);
  });

  it("a service that ignores `page` (the same page every time, total 1,000,000,000): an error after 2 requests, not 10,000", async () => {
    const items = Array.from({ length: 100 }, (_, i) => cluster(i));
    server = await scriptedServer((_req, res) => sendJson(res, 200, { items, total: 1_000_000_000, page: 1, per_page: 100 }));
    const client = createClient({ endpoint: server.url, token: TOKEN, limiter: false });
    const e = await rejection(client.listAllClusters());
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe("invalid_listing");
    expect(e.message).toContain("page 2 repeats page 1 (the same 100 clusters), so the service ignores `page`");
    expect(server.requests).toHaveLength(2);
  });

  it("a total the pages contradict (total 120, but page 2 is empty) is an error, not 100 clusters", async () => {
    const all = Array.from({ length: 100 }, (_, i) => cluster(i));
    server = await scriptedServer((req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? 1);
      sendJson(res, 200, { items: all.slice((page - 1) * 100, page * 100), total: 120, page, per_page: 100 });
    });
    const client = createClient({ endpoint: server.url, token: TOKEN, limiter: false });
    const e = await rejection(client.listAllClusters());
    expect(e.code).toBe("invalid_listing");
    expect(e.message).toContain("page 2 holds 0 clusters where `total` 120 leaves 20 for it (100 on earlier pages, 100 a page)");
  });
});

describe("response bodies have a size limit", () => {
  it("a body over 16 MiB fails naming the limit, once, instead of being buffered whole", async () => {
    const limit = 16 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, "a");
    server = await scriptedServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let sent = 0;
      const pump = (): void => {
        while (sent < 17) {
          sent += 1;
          if (!res.write(chunk)) {
            res.once("drain", pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const client = createClient({ endpoint: server.url, token: TOKEN, limiter: false });
    const e = await rejection(client.listClusters());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.code).toBe("ERR_RESPONSE_TOO_LARGE");
    expect(e.message).toContain(`answered with a body too large to read`);
    expect(e.message).toContain(`the limit of ${limit} bytes, the client option maxResponseBytes`);
    expect(server.requests).toHaveLength(1);
    expect(DEFAULT_CLIENT_OPTIONS.maxResponseBytes).toBe(limit);
  });
});
