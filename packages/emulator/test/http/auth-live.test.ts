/** Tokens — permissions × scopes, expiry, 401/403 bodies, control-API guard. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator, type TokenSpec } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

const clock = new ManualClock(Date.UTC(2025, 5, 1));
let emu: RunningEmulator;
let admin: Api; // full token
let a: string; // cluster ids
let b: string;
let nodeA: string;

const spec = (token: string, permissions: TokenSpec["permissions"], scope: string): TokenSpec => ({
  token,
  permissions,
  scope,
  plan: "enterprise",
});

beforeAll(async () => {
  ({ emu, api: admin } = await start({ clock, token: "full-token-123", provisionSeconds: 10, scaleSeconds: 10, deleteSeconds: 10 }));
  a = (await admin.post("/v1/clusters", clusterBody({ name: "a" }))).body.id;
  b = (await admin.post("/v1/clusters", clusterBody({ name: "b" }))).body.id;
  clock.advanceSeconds(10);
  nodeA = (await admin.get(`/v1/clusters/${a}/nodes`)).body.items[0].id;
});
afterAll(() => emu.close());

/** One call per operation, against cluster `id`. */
function operations(id: string, node: string) {
  return [
    { op: "list", perm: "read", create: false, call: (x: Api) => x.get("/v1/clusters") },
    { op: "get", perm: "read", create: false, call: (x: Api) => x.get(`/v1/clusters/${id}`) },
    { op: "kubeconfig", perm: "read", create: false, call: (x: Api) => x.get(`/v1/clusters/${id}/kubeconfig`) },
    { op: "nodes", perm: "read", create: false, call: (x: Api) => x.get(`/v1/clusters/${id}/nodes`) },
    { op: "node", perm: "read", create: false, call: (x: Api) => x.get(`/v1/clusters/${id}/nodes/${node}`) },
    // A PATCH to the current value changes nothing, so the matrix leaves the clusters as they are.
    { op: "patch", perm: "write", create: false, call: (x: Api) => x.patch(`/v1/clusters/${id}`, { workers: 2 }) },
    {
      op: "create",
      perm: "write",
      create: true,
      call: (x: Api) => x.post("/v1/clusters", { name: "bad name!", control_planes: 1, workers: 1, node_size: "small" }),
    },
  ] as const;
}

describe("permission × scope matrix", () => {
  const permissionSets: Array<TokenSpec["permissions"]> = [["read"], ["write"], ["admin"], ["read", "write"], ["read", "write", "admin"]];
  const scopes = ["*", "cluster:*", "cluster:A", "cluster:B"];
  let n = 0;
  for (const perms of permissionSets) {
    for (const scopeName of scopes) {
      it(`permissions [${perms.join(",")}] scope ${scopeName}`, async () => {
        const scope = scopeName === "cluster:A" ? `cluster:${a}` : scopeName === "cluster:B" ? `cluster:${b}` : scopeName;
        const token = `matrix-token-${++n}`;
        await emu.control.addToken(spec(token, perms, scope));
        const api = admin.as(token);
        for (const o of operations(a, nodeA)) {
          const res = await o.call(api);
          const hasPerm = (perms as string[]).includes(o.perm);
          const scopedToOne = scope.startsWith("cluster:cls_");
          const coversA = !scopedToOne || scope === `cluster:${a}`;
          let expected: number;
          if (!hasPerm) expected = 403;
          else if (o.create)
            expected = scopedToOne ? 403 : 400; // 400: the body is invalid on purpose
          else if (o.op === "list") expected = 200;
          else expected = coversA ? 200 : 403;
          expect(res.status, `${o.op} with [${perms}] ${scopeName}`).toBe(expected);
          if (expected === 403) {
            expect(res.body.error).toBe("forbidden");
            expect(res.body.message).toMatch(/^Insufficient permissions/);
            if (!hasPerm) expect(res.body.message).toContain(`"${o.perm}" permission`);
            else if (o.create) expect(res.body.message).toContain("creating a cluster requires scope");
            else expect(res.body.message).toContain(`on cluster ${a}`);
          }
          if (o.op === "list" && expected === 200) {
            const ids = res.body.items.map((c: { id: string }) => c.id);
            if (scope === `cluster:${a}`) expect(ids).toEqual([a]);
            else if (scope === `cluster:${b}`) expect(ids).toEqual([b]);
            else expect(ids).toEqual([a, b]);
            expect(res.body.total).toBe(ids.length);
          }
        }
      });
    }
  }
});

describe("scoped tokens", () => {
  it("a cluster:<id> token gets 404 for a cluster that does not exist, 403 for one out of scope", async () => {
    await emu.control.addToken(spec("scoped-one-a", ["read", "write"], `cluster:${a}`));
    const api = admin.as("scoped-one-a");
    expect((await api.get("/v1/clusters/cls_0000000000000000")).status).toBe(404);
    expect((await api.get(`/v1/clusters/${b}`)).status).toBe(403);
    expect((await api.del(`/v1/clusters/${b}`)).status).toBe(403);
    expect((await admin.get(`/v1/clusters/${b}`)).body.status).toBe("running");
  });

  it("accepts the bare hex form of a cluster scope", async () => {
    await emu.control.addToken(spec("scoped-hex-a", ["read"], `cluster:${a.slice(4)}`));
    const res = await admin.as("scoped-hex-a").get("/v1/clusters");
    expect(res.body.items.map((c: { id: string }) => c.id)).toEqual([a]);
  });

  it("a cluster:<id> token lists nothing once its cluster is gone", async () => {
    const c = (await admin.post("/v1/clusters", clusterBody({ name: "short-lived" }))).body.id;
    await emu.control.addToken(spec("scoped-gone", ["read"], `cluster:${c}`));
    clock.advanceSeconds(10);
    await admin.del(`/v1/clusters/${c}`);
    clock.advanceSeconds(10);
    expect((await admin.as("scoped-gone").get("/v1/clusters")).body).toMatchObject({ items: [], total: 0 });
  });
});

describe("401 unauthorized", () => {
  const cases: Array<[string, Record<string, string>]> = [
    ["no header", {}],
    ["empty bearer", { authorization: "Bearer " }],
    ["basic scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["unknown token", { authorization: "Bearer not-a-real-token" }],
  ];
  for (const [label, headers] of cases) {
    it(label, async () => {
      const res = await admin.as(undefined).req("GET", "/v1/clusters", undefined, headers);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("unauthorized");
      expect(res.body.message).toMatch(/invalid or expired|missing or invalid/);
      expect(res.text).not.toContain("not-a-real-token");
      expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
    });
  }

  it("an expired token is 401 and says it is expired; the same token worked before expiry", async () => {
    const expires = new Date(clock.now() + 5_000).toISOString();
    await emu.control.addToken({ ...spec("expiring-token", ["read"], "*"), expires_at: expires });
    const api = admin.as("expiring-token");
    expect((await api.get("/v1/clusters")).status).toBe(200);
    clock.advanceSeconds(5);
    const res = await api.get("/v1/clusters");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized", message: `The API token is invalid or expired (it expired at ${expires})` });
  });

  it("authentication comes before permission and before the body is read", async () => {
    const res = await admin.as("not-a-real-token").req("POST", "/v1/clusters", "{garbage");
    expect(res.status).toBe(401);
  });
});

describe("control API guard", () => {
  it("refuses service tokens with 403 and anything else with 401; accepts the admin token", async () => {
    const svc = await admin.get("/_emulator/request-counts");
    expect(svc.status).toBe(403);
    expect(svc.body.error).toBe("forbidden");
    const none = await admin.as(undefined).get("/_emulator/request-counts");
    expect(none.status).toBe(401);
    const wrong = await admin.as("nope-nope-nope").get("/_emulator/clusters");
    expect(wrong.status).toBe(401);
    expect((await admin.as(emu.adminToken).get("/_emulator/request-counts")).status).toBe(200);
  });

  it("the admin token is not a service token", async () => {
    expect((await admin.as(emu.adminToken).get("/v1/clusters")).status).toBe(401);
  });

  it("addToken rejects a bad spec naming the field", async () => {
    const res = await admin
      .as(emu.adminToken)
      .post("/_emulator/tokens", { token: "valid-token-1", permissions: ["root"], scope: "*", plan: "pro" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation_failed", message: expect.stringContaining("permissions") });
    const scope = await admin
      .as(emu.adminToken)
      .post("/_emulator/tokens", { token: "valid-token-1", permissions: ["read"], scope: "clusters", plan: "pro" });
    expect(scope.body.message).toContain("scope");
    expect((await admin.as("valid-token-1").get("/v1/clusters")).status).toBe(401);
  });
});
