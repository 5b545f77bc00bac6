/** Per-token, per-plan rate limits in fixed 60 s windows. */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const community = {
  token: "community-token",
  permissions: ["read", "write"] as ("read" | "write")[],
  scope: "*",
  plan: "community" as const,
};

describe("rate limits", () => {
  it("community: headers on every response, 429 with Retry-After on request 101", async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1, 12, 0, 0, 250));
    let api: Api;
    ({ emu, api } = await start({ clock, tokens: [community] }));
    const windowEnd = Math.ceil((clock.now() + 60_000) / 1000);
    for (let i = 1; i <= 100; i++) {
      // Mix successes and errors: every response of an authenticated request counts and carries headers.
      const res = i % 10 === 0 ? await api.get("/v1/clusters/cls_0000000000000000") : await api.get("/v1/clusters?per_page=1");
      expect(res.status).toBe(i % 10 === 0 ? 404 : 200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(100 - i));
      expect(res.headers.get("x-ratelimit-reset")).toBe(String(windowEnd));
      clock.advance(100); // 10 s in total
    }
    const limited = await api.get("/v1/clusters");
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: "rate_limited", message: expect.stringContaining("100 requests per minute") });
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("x-ratelimit-limit")).toBe("100");
    expect(limited.headers.get("x-ratelimit-reset")).toBe(String(windowEnd));
    // Window started at 12:00:00.250, now is 12:00:10.250: 50 s left.
    expect(limited.headers.get("retry-after")).toBe("50");
    // A limited create changes nothing.
    const create = await api.post("/v1/clusters", clusterBody());
    expect(create.status).toBe(429);
    expect(await emu.control.clusters()).toEqual([]);
    const counts = await emu.control.requestCounts();
    expect(counts["GET /v1/clusters"]).toBe(91);
    expect(counts["POST /v1/clusters"]).toBe(1);

    // The window is fixed: it ends 60 s after the first request, then a fresh one opens.
    clock.set(Date.UTC(2025, 0, 1, 12, 1, 0, 249));
    expect((await api.get("/v1/clusters")).status).toBe(429);
    clock.advance(1);
    const fresh = await api.get("/v1/clusters");
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(fresh.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil((clock.now() + 60_000) / 1000)));
  });

  it("counts per token: another token's window is untouched; plans set the limit", async () => {
    const clock = new ManualClock();
    let api: Api;
    ({ emu, api } = await start({
      clock,
      tokens: [community, { ...community, token: "pro-token-1", plan: "pro" }, { ...community, token: "enterprise-1", plan: "enterprise" }],
    }));
    for (let i = 0; i < 101; i++) await api.get("/v1/clusters");
    expect((await api.get("/v1/clusters")).status).toBe(429);
    const pro = await api.as("pro-token-1").get("/v1/clusters");
    expect(pro.status).toBe(200);
    expect(pro.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(pro.headers.get("x-ratelimit-remaining")).toBe("999");
    const ent = await api.as("enterprise-1").get("/v1/clusters");
    expect(ent.headers.get("x-ratelimit-limit")).toBe("10000");
  });

  it("the --token / dev token plan defaults to enterprise and follows the plan option", async () => {
    let api: Api;
    ({ emu, api } = await start());
    expect((await api.get("/v1/clusters")).headers.get("x-ratelimit-limit")).toBe("10000");
    await emu.close();
    ({ emu, api } = await start({ token: "my-token-123", plan: "pro" }));
    expect((await api.get("/v1/clusters")).headers.get("x-ratelimit-limit")).toBe("1000");
  });

  it("401 carries no rate-limit headers; unknown routes and wrong methods count for a valid token", async () => {
    let api: Api;
    ({ emu, api } = await start({ tokens: [community] }));
    const unauth = await api.as("wrong-token-1").get("/v1/clusters");
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("x-ratelimit-limit")).toBeNull();
    expect((await api.as("wrong-token-1").get("/v1/nothing-here")).headers.get("x-ratelimit-limit")).toBeNull();
    const unknown = await api.get("/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-ratelimit-remaining")).toBe("99");
    const wrong = await api.req("PUT", "/v1/clusters");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("x-ratelimit-remaining")).toBe("98");
    expect((await api.get("/v1/clusters")).headers.get("x-ratelimit-remaining")).toBe("97");
    // Past the limit, the route answer still wins (404 / 405), with 0 remaining.
    for (let i = 0; i < 97; i++) await api.get("/v1/clusters");
    expect((await api.get("/v1/clusters")).status).toBe(429);
    const late = await api.get("/v1/nothing-here");
    expect(late.status).toBe(404);
    expect(late.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(late.headers.get("retry-after")).toBeNull();
  });

  it("real clock: Reset is epoch seconds about a minute ahead", async () => {
    let api: Api;
    ({ emu, api } = await start({ tokens: [community] }));
    const before = Date.now() / 1000;
    const reset = Number((await api.get("/v1/clusters")).headers.get("x-ratelimit-reset"));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(Math.floor(before + 60));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + 61));
  });

  it("control reset clears the rate windows", async () => {
    let api: Api;
    ({ emu, api } = await start({ tokens: [community] }));
    for (let i = 0; i < 101; i++) await api.get("/v1/clusters");
    expect((await api.get("/v1/clusters")).status).toBe(429);
    await emu.control.reset();
    expect((await api.get("/v1/clusters")).status).toBe(200);
  });
});
