import { describe, expect, it } from "vitest";
import {
  DeadlineError,
  RateLimiter,
  computePacingDelay,
  limiterKey,
  newClientRuntime,
  parseRateLimitHeaders,
  sharedLimiter,
} from "../../src/client";

const START = Date.UTC(2030, 0, 1, 12, 0, 0, 250);

/**
 * A fixed-window rate limiter as the service describes it: `limit` requests per 60 s window that
 * starts at the first request, headers on every response, reset as epoch seconds (rounded DOWN,
 * the unkind choice: the window really ends up to a second after the printed value).
 */
class FixedWindowServer {
  windowStart: number | undefined;
  used = 0;
  rejected = 0;
  accepted: number[] = [];
  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  handle(now: number): { status: number; headers: Record<string, string> } {
    if (this.windowStart === undefined || now >= this.windowStart + this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    const end = this.windowStart + this.windowMs;
    const ok = this.used < this.limit;
    if (ok) {
      this.used += 1;
      this.accepted.push(now);
    } else {
      this.rejected += 1;
    }
    return {
      status: ok ? 200 : 429,
      headers: {
        "x-ratelimit-limit": String(this.limit),
        "x-ratelimit-remaining": String(this.limit - this.used),
        "x-ratelimit-reset": String(Math.floor(end / 1000)),
        date: new Date(now).toUTCString(),
      },
    };
  }
}

function fakeTime(start = START) {
  const clock = { t: start, slept: [] as number[] };
  return {
    clock,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
    },
  };
}

async function send(limiter: RateLimiter, server: FixedWindowServer, now: () => number) {
  await limiter.acquire();
  const res = server.handle(now());
  limiter.complete(parseRateLimitHeaders(res.headers, now()), now());
  return res.status;
}

describe("computePacingDelay", () => {
  const now = 1_000_000;
  it("does not hold requests when nothing is known yet", () => {
    expect(computePacingDelay({ inFlight: 0 }, now)).toBe(0);
  });

  it("does not hold requests while the budget is above the pacing threshold", () => {
    expect(computePacingDelay({ inFlight: 0, limit: 100, remaining: 80, resetAt: now + 30_000, lastSentAt: now }, now)).toBe(0);
  });

  it("spreads the remaining requests over the time left once under the threshold", () => {
    // 10 left, 30 s left: one every 3 s; the last one went out 1 s ago.
    const state = { inFlight: 0, limit: 100, remaining: 10, resetAt: now + 30_000, lastSentAt: now - 1000 };
    const noMargin = { safetyMarginMs: 0 };
    expect(computePacingDelay(state, now, noMargin)).toBe(2000);
    expect(computePacingDelay({ ...state, lastSentAt: now - 5000 }, now, noMargin)).toBe(0);
    expect(computePacingDelay({ ...state, remaining: 1 }, now, noMargin)).toBe(29_000);
    // The safety margin stretches the window the requests are spread over: 33 s / 11 = 3 s.
    expect(computePacingDelay({ ...state, remaining: 11 }, now, { safetyMarginMs: 3000 })).toBe(2000);
  });

  it("waits for the reset plus a safety margin when the window is used up", () => {
    const state = { inFlight: 0, limit: 100, remaining: 0, resetAt: now + 12_000, lastSentAt: now };
    expect(computePacingDelay(state, now, { safetyMarginMs: 1000 })).toBe(13_000);
    expect(computePacingDelay(state, now, { safetyMarginMs: 0 })).toBe(12_000);
  });

  it("lets requests through once the known window is over", () => {
    expect(computePacingDelay({ inFlight: 0, limit: 100, remaining: 5, resetAt: now - 1, lastSentAt: now - 5 }, now)).toBe(0);
  });

  it("still waits out the margin when the printed reset has just passed but the budget is spent", () => {
    // The printed reset is truncated to the second: the server's window may still be open.
    const state = { inFlight: 0, limit: 100, remaining: 0, resetAt: now - 200, lastSentAt: now - 5 };
    expect(computePacingDelay(state, now, { safetyMarginMs: 1000 })).toBe(800);
    expect(computePacingDelay(state, now + 800, { safetyMarginMs: 1000 })).toBe(0);
  });

  it("caps any wait (a misread reset must not stall for hours)", () => {
    const state = { inFlight: 0, limit: 100, remaining: 0, resetAt: now + 3_600_000, lastSentAt: now };
    expect(computePacingDelay(state, now, { maxWaitMs: 90_000 })).toBe(90_000);
  });

  it("paces with any remaining count when the limit is unknown", () => {
    expect(computePacingDelay({ inFlight: 0, remaining: 50, resetAt: now + 50_000, lastSentAt: now }, now, { safetyMarginMs: 0 })).toBe(
      1000,
    );
  });
});

describe("RateLimiter against a simulated 100-a-minute server", () => {
  it("sends 150 sequential requests without a single 429, pacing into the next window", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    const server = new FixedWindowServer(100);
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) statuses.push(await send(limiter, server, now));

    expect(server.rejected).toBe(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // 150 requests cannot fit into one 60 s window of 100.
    expect(clock.t - START).toBeGreaterThan(60_000);
    // Not a burst-then-stall: the second half of the first window's budget is spread out, so
    // the 100th request goes out late in the window rather than within the first second.
    const hundredth = server.accepted[99]!;
    expect(hundredth - START).toBeGreaterThan(45_000);
    expect(hundredth - START).toBeLessThan(60_000);
    // ... and the first half goes out at once: a small stack does not crawl.
    expect(server.accepted[49]! - START).toBe(0);
  });

  it("keeps concurrent callers under the limit too", async () => {
    const { now, sleep } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    const server = new FixedWindowServer(100);
    const worker = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await limiter.acquire();
        // The request is in flight for a while: other workers acquire meanwhile.
        await Promise.resolve();
        await Promise.resolve();
        const res = server.handle(now());
        limiter.complete(parseRateLimitHeaders(res.headers, now()), now());
      }
    };
    await Promise.all(Array.from({ length: 10 }, () => worker(25)));
    expect(server.accepted.length).toBe(250);
    expect(server.rejected).toBe(0);
  });

  it("takes over a window another process already spent: waits for its reset instead of a 429", async () => {
    const { now, sleep, clock } = fakeTime();
    const server = new FixedWindowServer(100);
    // Someone else used 98 of the window, 20 s ago.
    server.windowStart = START - 20_000;
    server.used = 98;
    const limiter = new RateLimiter({ clock: { now, sleep } });
    for (let i = 0; i < 5; i++) await send(limiter, server, now);
    expect(server.rejected).toBe(0);
    // The 1st request learns the state; the 2nd is spread over the ~40 s left; the 3rd must wait
    // for the window to end (40 s after START).
    expect(server.accepted[2]! - START).toBeGreaterThanOrEqual(40_000);
    expect(clock.slept.length).toBeGreaterThan(0);
  });

  it("records a refusal even without headers, so the next request waits", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    await limiter.acquire();
    limiter.complete({ remaining: 0, resetInMs: 5000 }, now());
    await limiter.acquire();
    expect(clock.t - START).toBe(5000 + 1000);
  });

  it("caps the total hold of one request, not each wait: 90 s for a window said to end in 50 minutes", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    await limiter.acquire();
    limiter.complete({ remaining: 0, resetInMs: 50 * 60_000 }, now());
    await limiter.acquire();
    expect(clock.t - START).toBe(90_000);
  });

  it("a hold that would pass the caller's deadline throws at once, naming the headers", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    await limiter.acquire();
    limiter.complete({ remaining: 0, resetInMs: 30_000, source: "X-RateLimit-Remaining: 0, X-RateLimit-Reset: 30" }, now());
    const budget = { remainingMs: 5_000, deadline: "create timeout", method: "GET", path: "/v1/clusters" };
    const e = await limiter.acquire(budget).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeadlineError);
    expect((e as Error).message).toBe(
      "CMS API GET /v1/clusters: the rate limiter's hold of 31s (the window is spent, X-RateLimit-Remaining: 0, X-RateLimit-Reset: 30) exceeds the remaining 5s of the create timeout, so it was not sent.",
    );
    expect(clock.slept).toEqual([]);
  });

  it("ignores a window said to end more than an hour ahead: no hold", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    await limiter.acquire();
    limiter.complete({ remaining: 0, resetInMs: 1_000_000_000_000, exact: true }, now());
    await limiter.acquire();
    expect(clock.slept).toEqual([]);
  });

  it("forgets a window that has ended and starts afresh", async () => {
    const { now, sleep, clock } = fakeTime();
    const limiter = new RateLimiter({ clock: { now, sleep } });
    await limiter.acquire();
    limiter.complete({ limit: 10, remaining: 0, resetInMs: 1000 }, now());
    clock.t += 2000; // past the reset and its safety margin
    await limiter.acquire();
    expect(clock.slept).toEqual([]);
    expect(limiter.snapshot()).toMatchObject({ remaining: 9, resetAt: undefined, inFlight: 1 });
  });
});

describe("shared limiter registry", () => {
  it("hands every client of one endpoint + token the same limiter, and others a different one", () => {
    const runtime = newClientRuntime();
    const a = sharedLimiter(runtime, "http://127.0.0.1:1", "secret-token-aaaa");
    expect(sharedLimiter(runtime, "http://127.0.0.1:1", "secret-token-aaaa")).toBe(a);
    expect(sharedLimiter(runtime, "http://127.0.0.1:1", "secret-token-bbbb")).not.toBe(a);
    expect(sharedLimiter(runtime, "http://127.0.0.1:2", "secret-token-aaaa")).not.toBe(a);
    expect(sharedLimiter(newClientRuntime(), "http://127.0.0.1:1", "secret-token-aaaa")).not.toBe(a);
  });

  it("keys by a hash of the token, never the token itself", () => {
    const key = limiterKey("http://127.0.0.1:1", "secret-token-aaaa");
    expect(key).not.toContain("secret-token-aaaa");
    expect(key).toMatch(/^http:\/\/127\.0\.0\.1:1#[0-9a-f]{16}$/);
    expect(limiterKey("http://127.0.0.1:1", "secret-token-bbbb")).not.toBe(key);
  });
});
