import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../packages/emulator/src";
import { RateLimitedError, RateLimiter, sharedLimiter } from "../../src/client";
import { client, clientRuntime, emulator, rejection } from "../support/client";

/**
 * The limiter against the real emulator. The emulator's rate-limit windows follow its clock, so
 * it gets a ManualClock, and the limiter under test sleeps by advancing that same clock: a full
 * 60-second window passes in milliseconds of real time.
 */
const clock = new ManualClock(Date.now());
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator({ clock });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.control.reset();
});

async function communityToken(): Promise<string> {
  const token = `cms_community_${randomBytes(12).toString("hex")}`;
  await emu.control.addToken({ token, permissions: ["read"], scope: "*", plan: "community" });
  return token;
}

async function spend(token: string, n: number): Promise<void> {
  const raw = client(emu, { token, limiter: false, retries: 0 });
  for (let i = 0; i < n; i++) await raw.listClusters();
}

describe("rate limiter against the emulator (community plan, 100 a minute)", () => {
  it("control: without the limiter, a nearly spent window answers 429", async () => {
    const token = await communityToken();
    await spend(token, 95);
    const raw = client(emu, { token, limiter: false, retries: 0 });
    let ok = 0;
    const e = await rejection(
      (async () => {
        for (let i = 0; i < 10; i++) {
          await raw.listClusters();
          ok += 1;
        }
      })(),
    );
    expect(e).toBeInstanceOf(RateLimitedError);
    expect(ok).toBe(5);
  });

  it("with the limiter, the same 10 requests wait for the window instead of getting a 429", async () => {
    const token = await communityToken();
    const windowStart = clock.now();
    await spend(token, 95);
    const sleeps: number[] = [];
    const limiter = new RateLimiter({
      clock: {
        now: () => clock.now(),
        sleep: async (ms) => {
          sleeps.push(ms);
          clock.advance(ms);
        },
      },
    });
    // retries 0: a single 429 would surface as RateLimitedError and fail the test.
    const c = client(emu, { token, limiter, retries: 0 });
    for (let i = 0; i < 10; i++) await c.listClusters();

    expect(c.retries).toEqual([]);
    expect((await emu.control.requestCounts())["GET /v1/clusters"]).toBe(105);
    // The last five could only be served by the next window: the limiter waited it out.
    expect(clock.now() - windowStart).toBeGreaterThanOrEqual(60_000);
    // The first request teaches the limiter that 4 are left; from then on requests are spread
    // out (or held for the reset), not fired at once.
    expect(sleeps.length).toBeGreaterThanOrEqual(4);
    expect(sleeps.every((ms) => ms > 0)).toBe(true);
  });
});

describe("shared limiter against the emulator (wall clock)", () => {
  it("learns the window from the response headers", async () => {
    const emuWall = await emulator();
    try {
      const c = client(emuWall);
      await c.listClusters();
      const state = sharedLimiter(clientRuntime(), emuWall.url, emuWall.token).snapshot();
      expect(state.limit).toBe(10_000);
      expect(state.remaining).toBe(9_999);
      expect(state.inFlight).toBe(0);
      expect(state.resetAt! - Date.now()).toBeGreaterThan(55_000);
      expect(state.resetAt! - Date.now()).toBeLessThanOrEqual(62_000);
    } finally {
      await emuWall.close();
    }
  });

  it("after a 429 with Retry-After: 1, the next request waits what the header says, not the reset plus a margin", async () => {
    await emu.control.injectFault({ kind: "rate_limit", retryAfterSeconds: 1, method: "GET", path: "/v1/clusters", count: 1 });
    const held: number[] = [];
    // Real clock; the limiter's holds are recorded instead of slept (the retry's own 1 s is slept).
    const limiter = new RateLimiter({ clock: { now: () => Date.now(), sleep: async (ms) => void held.push(ms) } });
    const c = client(emu, { limiter });
    await c.listClusters();
    expect(c.retries.map((r) => r.delayMs)).toEqual([1000]);
    // The retry already waited the second the server asked for: nothing more to hold.
    expect(held.reduce((a, b) => a + b, 0)).toBeLessThan(250);
  });
});
