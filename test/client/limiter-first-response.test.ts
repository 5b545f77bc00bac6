/**
 * The limiter holds concurrent requests while nothing is known about the window: a new process
 * (each `pulumi up` starts a provider host) may join a window an earlier one nearly spent.
 */
import { describe, expect, it } from "vitest";
import { RateLimiter, parseRateLimitHeaders } from "../../src/client";

const START = Date.UTC(2030, 0, 1, 12, 0, 0, 0);

describe("limiter, first response", () => {
  it("sends one request first, then only what the window has left: no 429", async () => {
    const clock = { t: START };
    const now = () => clock.t;
    const sleep = async (ms: number) => {
      clock.t += ms;
    };
    // Fixed window of 100 that an earlier process started 30 s ago and used 95 of.
    const server = { windowStart: START - 30_000, used: 95, rejected: 0, accepted: [] as number[] };
    const handle = () => {
      if (now() >= server.windowStart + 60_000) {
        server.windowStart = now();
        server.used = 0;
      }
      const ok = server.used < 100;
      if (ok) {
        server.used += 1;
        server.accepted.push(now());
      } else server.rejected += 1;
      return {
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": String(100 - server.used),
        "x-ratelimit-reset": String(Math.ceil((server.windowStart + 60_000) / 1000)),
      };
    };
    const limiter = new RateLimiter({ clock: { now, sleep } });
    // Twenty callers at once, each request in flight until the next turn of the event loop
    // (without the hold all twenty go out before the first answer: fifteen 429s).
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        await limiter.acquire();
        await new Promise((resolve) => setImmediate(resolve));
        limiter.complete(parseRateLimitHeaders(handle(), now()), now());
      }),
    );
    expect(server.rejected).toBe(0);
    expect(server.accepted.length).toBe(20);
    // Five fit in the old window; the other fifteen waited for the next one.
    expect(server.accepted.filter((t) => t < START + 30_000).length).toBeLessThanOrEqual(5);
  });

  it("does not serialise requests to a server that sends no rate-limit headers", async () => {
    const limiter = new RateLimiter();
    const first = await limiter.acquire();
    limiter.complete({}, first.sentAt);
    // Nothing known, but a response has been seen: concurrent acquires go out together.
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(limiter.snapshot().inFlight).toBe(3);
  });
});
