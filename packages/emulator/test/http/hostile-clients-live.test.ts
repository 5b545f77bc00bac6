/**
 * Hostile and unlucky clients, over real sockets: the emulator decides authentication on the
 * route it matched however the path is spelled, bounds how long and how many connections a
 * client holds, answers every error in the service's `{error, message}` format, and keeps every
 * acknowledged write across SIGKILL with `--state`. (Kubeconfigs that every YAML reader loads:
 * model/kubeconfig-yaml-live.test.ts.)
 */
import { mkdtempSync, readdirSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src";
import { toPrincipal } from "../../src/http/auth";
import { ensureCliBuilt, kill9, listeningUrl, runCli } from "../support/cli";
import { Api, clusterBody, until } from "../support/emulator";

/** What came back on a raw connection: status line, headers, body, and whether the server closed it. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  closedByServer: boolean;
}

/** Send `text` on a new connection; resolve with the first answer (or what came before `waitMs`). */
function raw(url: string, text: string | Buffer, waitMs = 3_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolvePromise) => {
    const socket = net.connect(Number(port), hostname);
    let data = "";
    let closedByServer = false;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const [head, ...rest] = data.split("\r\n\r\n");
      const [statusLine, ...headerLines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of headerLines) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolvePromise({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: rest.join("\r\n\r\n"), closedByServer });
    };
    const timer = setTimeout(done, waitMs);
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("end", () => {
      closedByServer = true;
      done();
    });
    socket.on("error", () => done());
    socket.write(text);
  });
}

const get = (path: string, auth?: string, extra = "") =>
  `GET ${path} HTTP/1.1\r\nHost: emulator\r\nConnection: close\r\n${auth ? `Authorization: Bearer ${auth}\r\n` : ""}${extra}\r\n`;

/** The body is the service's error format. */
function expectServiceError(a: RawAnswer, status: number, code?: string): void {
  expect(a.status, a.body).toBe(status);
  const body = JSON.parse(a.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ""));
  expect(Object.keys(body).sort()).toEqual(["error", "message"]);
  if (code) expect(body.error).toBe(code);
  expect(body.message.length).toBeGreaterThan(0);
}

describe("authentication, counting and rate limits apply however a path is spelled", () => {
  let emu: RunningEmulator;
  let api: Api;
  let id: string;
  let nodeId: string;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, provisionSeconds: 0, token: "tok-right-0123", planLimits: { community: 1000 } });
    api = new Api(emu.url, emu.token);
    id = (await api.post("/v1/clusters", clusterBody({ name: "spelled" }))).body.id;
    nodeId = (await api.get(`/v1/clusters/${id}/nodes`)).body.items[0].id;
  });
  afterAll(() => emu.close());

  /** Ways to write `path` that mean the same path. */
  const spellings = (path: string): Array<[string, string]> => [
    ["as is", path],
    ["percent-encoded letter", path.replace("/v1", "/%761")],
    ["percent-encoded digit", path.replace("/v1", "/v%31")],
    ["lower-case hex", path.replace("clusters", "%63lusters")],
    ["double slashes", path.replace("/v1/", "//v1//")],
    ["dot segment", path.replace("/v1/", "/v1/./")],
    ["dot-dot segment", path.replace("/v1/", "/x/../v1/")],
    ["encoded dot-dot", path.replace("/v1/", "/x/%2e%2E/v1/")],
    ["absolute-form", `http://emulator${path}`],
  ];
  const routes = () => [
    { method: "GET", path: "/v1/clusters" },
    { method: "POST", path: "/v1/clusters" },
    { method: "GET", path: `/v1/clusters/${id}` },
    { method: "PATCH", path: `/v1/clusters/${id}` },
    { method: "DELETE", path: `/v1/clusters/${id}` },
    { method: "GET", path: `/v1/clusters/${id}/kubeconfig` },
    { method: "GET", path: `/v1/clusters/${id}/nodes` },
    { method: "GET", path: `/v1/clusters/${id}/nodes/${nodeId}` },
  ];
  // An invalid body: with the right token the answer is 400 and nothing changes, so every
  // spelling can be tried with every method.
  const request = (method: string, target: string, token?: string) =>
    `${method} ${target} HTTP/1.1\r\nHost: emulator\r\nConnection: close\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}` +
    (method === "POST" || method === "PATCH" ? 'Content-Type: application/json\r\nContent-Length: 16\r\n\r\n{"workers":"x"}\n' : "\r\n");

  it("every spelling × route × method: 401 without a token or with a wrong one; with the right one, what the plain spelling gets", async () => {
    const failures: string[] = [];
    for (const { method, path } of routes()) {
      const plain = (await raw(emu.url, request(method, path, emu.token))).status;
      expect(plain, `${method} ${path}`).not.toBe(500);
      for (const [how, target] of spellings(path)) {
        const none = await raw(emu.url, request(method, target));
        const wrong = await raw(emu.url, request(method, target, "tok-wrong-0123"));
        const right = await raw(emu.url, request(method, target, emu.token));
        if (none.status !== 401 || wrong.status !== 401 || right.status !== plain) {
          failures.push(`${method} ${target} (${how}): none ${none.status}, wrong ${wrong.status}, right ${right.status} (plain ${plain})`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("case is part of the path: /V1/clusters is no route (404), never served", async () => {
    for (const path of ["/V1/clusters", `/v1/Clusters/${id}`, `/v1/CLUSTERS/${id}/kubeconfig`]) {
      expectServiceError(await raw(emu.url, get(path)), 404, "not_found");
      expectServiceError(await raw(emu.url, get(path, emu.token)), 404, "not_found");
    }
  });

  it("odd spellings are counted under their route and spend the token's quota", async () => {
    await emu.control.addToken({ token: "tok-community-5", permissions: ["read"], scope: "*", plan: "community" });
    const limited = await startEmulator({ port: 0, token: "tok-limited-0123", plan: "community", planLimits: { community: 3 } });
    try {
      await limited.control.resetRequestCounts();
      const statuses: number[] = [];
      for (const target of ["/%761/clusters", "/v%31/clusters", "http://emulator/v1/clusters", "//v1//clusters"]) {
        statuses.push((await raw(limited.url, get(target, limited.token))).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(await limited.control.requestCounts()).toEqual({ "GET /v1/clusters": 4 });
    } finally {
      await limited.close();
    }
  });

  it("an id of over 8 KB is routed like any unknown id: 401 without a token, 404 with one", async () => {
    const long = `cls_${"a".repeat(9000)}`;
    expectServiceError(await raw(emu.url, get(`/v1/clusters/${long}`)), 401, "unauthorized");
    expectServiceError(await raw(emu.url, get(`/v1/clusters/${long}`, emu.token)), 404, "not_found");
  });

  it("PROPFIND, TRACE, PURGE, LOCK, REPORT, SEARCH and others on a known path: 405 with Allow", async () => {
    for (const method of ["PROPFIND", "TRACE", "PURGE", "LOCK", "REPORT", "SEARCH", "MKCOL", "COPY", "MOVE", "UNLOCK", "QUERY"]) {
      const a = await raw(emu.url, `${method} /v1/clusters HTTP/1.1\r\nHost: emulator\r\nConnection: close\r\n\r\n`);
      expectServiceError(a, 405, "method_not_allowed");
      expect(a.headers.allow, method).toBe("GET, POST");
    }
  });
});

describe("answers made by the HTTP layer are in the service's format", () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, connections: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
  });
  afterAll(() => emu.close());

  it("a missing Host header: 400", async () => {
    expectServiceError(await raw(emu.url, "GET /v1/clusters HTTP/1.1\r\nConnection: close\r\n\r\n"), 400, "bad_request");
  });

  it("a malformed request line: 400, connection closed", async () => {
    const a = await raw(emu.url, "GARBAGE\r\n\r\n");
    expectServiceError(a, 400, "bad_request");
    expect(a.closedByServer).toBe(true);
  });

  it("oversized headers: 431", async () => {
    expectServiceError(await raw(emu.url, get("/v1/clusters", undefined, `X-Big: ${"a".repeat(20_000)}\r\n`)), 431, "headers_too_large");
  });

  it("an Expect other than 100-continue: 417", async () => {
    const a = await raw(emu.url, "POST /v1/clusters HTTP/1.1\r\nHost: emulator\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}");
    expectServiceError(a, 417, "expectation_failed");
  });

  it("headers that never end: 408 within the header limit, connection closed", async () => {
    const a = await raw(emu.url, "GET /v1/clusters HTTP/1.1\r\nHost: emulator\r\nX-Slow: 1\r\n", 5_000);
    expectServiceError(a, 408, "request_timeout");
    expect(a.closedByServer).toBe(true);
  });
});

describe("connections are bounded in time and number", () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, token: "tok-bounded-0123", connections: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500 } });
  });
  afterAll(() => emu.close());

  const stalledBody = (token?: string) =>
    `POST /v1/clusters HTTP/1.1\r\nHost: emulator\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":"`;

  it("a body that stalls (Content-Length 500, 9 bytes sent): 408 within the request limit, connection closed", async () => {
    const started = Date.now();
    const a = await raw(emu.url, stalledBody(emu.token), 10_000);
    expectServiceError(a, 408, "request_timeout");
    expect(a.closedByServer).toBe(true);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it("an endless chunked body: 408, connection closed", async () => {
    const { hostname, port } = new URL(emu.url);
    const socket = net.connect(Number(port), hostname);
    socket.write(
      `POST /v1/clusters HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer ${emu.token}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const feeder = setInterval(() => socket.writable && socket.write("1\r\n \r\n"), 100);
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("error", () => undefined);
    await new Promise((r) => socket.on("close", r));
    clearInterval(feeder);
    expect(data).toMatch(/^HTTP\/1\.1 408 /);
    expect(data).toContain('"error":"request_timeout"');
  });

  it("an unauthenticated request with a stalled body gets its 401 at once, and the connection is closed", async () => {
    const started = Date.now();
    const a = await raw(emu.url, stalledBody(), 10_000);
    expectServiceError(a, 401, "unauthorized");
    expect(a.closedByServer).toBe(true);
    expect(Date.now() - started).toBeLessThan(900); // before any time limit
  });

  it("normal clients are served while 2,000 stalled connections are open; the stalled ones are closed by the limits", async () => {
    const { hostname, port } = new URL(emu.url);
    const stalled: net.Socket[] = [];
    let closed = 0;
    await Promise.all(
      Array.from(
        { length: 2_000 },
        (_, i) =>
          new Promise<void>((ok) => {
            const s = net.connect(Number(port), hostname, () => {
              // Half of them stall in the headers, half in the body.
              s.write(i % 2 === 0 ? "GET /v1/clusters HTTP/1.1\r\nHost: e\r\n" : stalledBody(emu.token));
              ok();
            });
            s.on("error", () => ok());
            s.on("close", () => (closed += 1));
            s.resume();
            stalled.push(s);
          }),
      ),
    );
    try {
      const api = new Api(emu.url, emu.token);
      for (let i = 0; i < 20; i++) expect((await api.get("/v1/clusters")).status).toBe(200);
      await until(
        async () => closed,
        (n) => n === 2_000,
        15_000,
      );
    } finally {
      for (const s of stalled) s.destroy();
    }
  });

  it("past the connection cap new connections are closed at once; capacity returns when stalled ones are cut", async () => {
    const capped = await startEmulator({
      port: 0,
      token: "tok-capped-0123",
      connections: { maxConnections: 50, headersTimeoutMs: 2_000, requestTimeoutMs: 2_500 },
    });
    const { hostname, port } = new URL(capped.url);
    const stalled: net.Socket[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        await new Promise<void>((ok) => {
          const s = net.connect(Number(port), hostname, () => ok());
          s.on("error", () => undefined);
          s.write("GET /v1/clusters HTTP/1.1\r\nHost: e\r\n");
          stalled.push(s);
        });
      }
      const refused = await raw(capped.url, get("/v1/clusters", capped.token), 2_000);
      expect(refused.status).toBe(0);
      expect(refused.closedByServer || refused.body === "").toBe(true);
      // The stalled ones reach the header limit and are closed; then clients are served again.
      const api = new Api(capped.url, capped.token);
      await until(
        async () => (await api.get("/v1/clusters").catch(() => ({ status: 0 }))).status,
        (s) => s === 200,
        10_000,
      );
    } finally {
      for (const s of stalled) s.destroy();
      await capped.close();
    }
  });
});

describe("tokens", () => {
  it("a tokens file entry with expires_at that is not an ISO date-time is refused, naming the field", () => {
    for (const expires_at of ["1", "2026", "tomorrow", "2026-12-31"]) {
      expect(() =>
        toPrincipal({ token: "tok-expiry-0123", permissions: ["read"], scope: "*", plan: "pro", expires_at }, "tokens[0]"),
      ).toThrow(/tokens\[0\]\.expires_at must be an ISO 8601 date-time/);
    }
    expect(
      toPrincipal({ token: "tok-expiry-0123", permissions: ["read"], scope: "*", plan: "pro", expires_at: "2026-12-31T23:59:59Z" })
        .expiresAt,
    ).toBe(Date.UTC(2026, 11, 31, 23, 59, 59));
  });

  it("an expired service token on the control API is no token: 401, not 403", async () => {
    const emu = await startEmulator({
      port: 0,
      tokens: [
        { token: "tok-expired-0123", permissions: ["read"], scope: "*", plan: "pro", expires_at: "2020-01-01T00:00:00Z" },
        { token: "tok-valid-0123", permissions: ["read"], scope: "*", plan: "pro" },
      ],
    });
    try {
      expectServiceError(await raw(emu.url, get("/_emulator/timings", "tok-expired-0123")), 401, "unauthorized");
      expectServiceError(await raw(emu.url, get("/_emulator/timings", "tok-valid-0123")), 403, "forbidden");
    } finally {
      await emu.close();
    }
  });
});

describe("--state: acknowledged writes survive SIGKILL", () => {
  beforeAll(ensureCliBuilt, 120_000);

  async function startCli(statePath: string): Promise<{ url: string; kill: () => Promise<void> }> {
    const s = runCli(["--port", "0", "--token", "tok-durable-0123", "--provision-seconds", "0", "--state", statePath]);
    return { url: await listeningUrl(s), kill: () => kill9(s) };
  }

  it("6 × SIGKILL during concurrent creates, updates and deletes: every acknowledged change is there after restart; no temporary files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-durable-"));
    const statePath = join(dir, "state.json");
    // `deleting`: a DELETE was sent; without its 204 (the kill came first) the cluster may be there or gone.
    const acknowledged = new Map<string, { workers?: number; deleted?: boolean; deleting?: boolean }>();
    let total = 0;
    for (let round = 0; round < 6; round++) {
      const emu = await startCli(statePath);
      const api = new Api(emu.url, "tok-durable-0123");
      // Everything acknowledged before is there, as acknowledged.
      const ids = [...acknowledged.keys()];
      for (const id of ids) {
        const want = acknowledged.get(id)!;
        const got = await api.get(`/v1/clusters/${id}`);
        if (want.deleted || want.deleting) expect([404, 200], id).toContain(got.status);
        else {
          expect(got.status, `round ${round}: acknowledged cluster ${id}`).toBe(200);
          if (want.workers !== undefined) expect(got.body.workers).toBe(want.workers);
        }
      }
      let stop = false;
      const workers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await api.post("/v1/clusters", clusterBody({ name: `d-${round}-${w}-${i}` }));
            if (r.status !== 201) continue;
            acknowledged.set(r.body.id, {});
            total += 1;
            if (i % 3 === 1) {
              const p = await api.patch(`/v1/clusters/${r.body.id}`, { workers: 5 });
              if (p.status === 200) acknowledged.set(r.body.id, { workers: 5 });
            }
            if (i % 5 === 2) {
              acknowledged.set(r.body.id, { ...acknowledged.get(r.body.id), deleting: true });
              const d = await api.del(`/v1/clusters/${r.body.id}`);
              if (d.status === 204) acknowledged.set(r.body.id, { deleted: true });
            }
          } catch {
            return; // the process is gone
          }
        }
      });
      await new Promise((r) => setTimeout(r, 300 + round * 100));
      await emu.kill();
      stop = true;
      await Promise.all(workers);
    }
    const last = await startCli(statePath);
    const api = new Api(last.url, "tok-durable-0123");
    const listed = new Set<string>();
    for (let page = 1; ; page++) {
      const body = (await api.get(`/v1/clusters?per_page=100&page=${page}`)).body;
      for (const c of body.items) listed.add(c.id);
      if (body.items.length < 100) break;
    }
    const lost = [...acknowledged].filter(([id, a]) => !a.deleted && !a.deleting && !listed.has(id)).map(([id]) => id);
    expect(total).toBeGreaterThan(50);
    expect(lost).toEqual([]);
    await last.kill();
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  }, 120_000);
});
