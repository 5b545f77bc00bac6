import { describe, expect, it } from "vitest";
import { backoffDelay, decideRetry, outcomeUnknown, type RetryPolicy } from "../../src/client";

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const policy: Partial<RetryPolicy> = {
  retries: 5,
  minRetryDelayMs: 100,
  maxRetryDelayMs: 1000,
  random: () => 0.5,
  now: () => NOW,
};

describe("decideRetry: which failures are retried", () => {
  it.each(["GET", "PATCH", "DELETE", "get"])("retries 5xx and network errors on %s", (method) => {
    for (const status of [500, 502, 503, 504]) {
      const d = decideRetry({ method, status, attempt: 1 }, policy);
      expect(d.retry, `${method} ${status}`).toBe(true);
      expect(d.verifyBeforeResend).toBe(false);
    }
    const n = decideRetry({ method, networkError: true, networkCode: "ECONNRESET", attempt: 1 }, policy);
    expect(n).toMatchObject({ retry: true, verifyBeforeResend: false });
  });

  it.each([400, 401, 403, 404, 409, 422, 405, 413])("never retries %i, whatever the method", (status) => {
    for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
      const d = decideRetry({ method, status, attempt: 1 }, policy);
      expect(d).toEqual({ retry: false, delayMs: 0, reason: `status ${status} is not retryable`, verifyBeforeResend: false });
    }
  });

  it("retries 429 on every method, POST included, without a lookup (it was not processed)", () => {
    for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
      expect(decideRetry({ method, status: 429, attempt: 1 }, policy)).toMatchObject({ retry: true, verifyBeforeResend: false });
    }
  });

  it("treats a rate_limited body code like a 429 even under another status", () => {
    expect(decideRetry({ method: "GET", status: 400, code: "rate_limited", attempt: 1 }, policy).retry).toBe(true);
  });

  it("re-sends a POST refused before processing (503, connection refused) directly", () => {
    expect(decideRetry({ method: "POST", status: 503, attempt: 1 }, policy)).toMatchObject({ retry: true, verifyBeforeResend: false });
    expect(decideRetry({ method: "POST", networkError: true, networkCode: "ECONNREFUSED", attempt: 1 }, policy)).toMatchObject({
      retry: true,
      verifyBeforeResend: false,
    });
  });

  it("asks to verify before re-sending a POST whose outcome is unknown", () => {
    for (const input of [
      { status: 500 },
      { status: 502 },
      { status: 504 },
      { networkError: true, networkCode: "ECONNRESET" },
      { networkError: true, networkCode: "ETIMEDOUT" },
      { networkError: true },
    ]) {
      const d = decideRetry({ method: "POST", attempt: 1, ...input }, policy);
      expect(d, JSON.stringify(input)).toMatchObject({ retry: true, verifyBeforeResend: true });
    }
  });

  it("does not retry permanent network failures such as an unknown host", () => {
    expect(decideRetry({ method: "GET", networkError: true, networkCode: "ENOTFOUND", attempt: 1 }, policy).retry).toBe(false);
    expect(decideRetry({ method: "GET", networkError: true, networkCode: "ERR_INVALID_URL", attempt: 1 }, policy).retry).toBe(false);
  });

  it("gives a refused connection on this machine three retries, a remote one the whole policy", () => {
    const refused = (attempt: number, loopback: boolean) =>
      decideRetry({ method: "GET", networkError: true, networkCode: "ECONNREFUSED", attempt, loopback }, policy);
    expect(refused(3, true).retry).toBe(true);
    expect(refused(4, true)).toMatchObject({ retry: false, reason: "no response (ECONNREFUSED): nothing listens there on this machine" });
    expect(refused(5, false).retry).toBe(true);
  });

  it("does not retry a body over the size limit", () => {
    expect(decideRetry({ method: "GET", networkError: true, networkCode: "ERR_RESPONSE_TOO_LARGE", attempt: 1 }, policy).retry).toBe(false);
  });

  it("gives up once the retries are spent", () => {
    expect(decideRetry({ method: "GET", status: 500, attempt: 5 }, policy).retry).toBe(true);
    const d = decideRetry({ method: "GET", status: 500, attempt: 6 }, policy);
    expect(d.retry).toBe(false);
    expect(d.reason).toContain("gave up after 5 retries");
  });

  it("classifies unknown outcomes", () => {
    expect(outcomeUnknown({ networkError: true, networkCode: "ECONNRESET" })).toBe(true);
    expect(outcomeUnknown({ networkError: true, networkCode: "ECONNREFUSED" })).toBe(false);
    expect(outcomeUnknown({ status: 500 })).toBe(true);
    expect(outcomeUnknown({ status: 503 })).toBe(false);
    expect(outcomeUnknown({ status: 429 })).toBe(false);
    expect(outcomeUnknown({ status: 404 })).toBe(false);
  });
});

describe("decideRetry: how long to wait", () => {
  it("waits for Retry-After on a 429", () => {
    const d = decideRetry({ method: "GET", status: 429, attempt: 1, headers: { "retry-after": "3" } }, policy);
    expect(d).toMatchObject({ retry: true, delayMs: 3000 });
    expect(d.reason).toContain("Retry-After");
  });

  it("prefers Retry-After over X-RateLimit-Reset", () => {
    const d = decideRetry(
      { method: "GET", status: 429, attempt: 1, headers: { "retry-after": "2", "x-ratelimit-reset": String(NOW / 1000 + 50) } },
      policy,
    );
    expect(d.delayMs).toBe(2000);
  });

  it.each([
    ["epoch seconds", String(NOW / 1000 + 17), 17_000],
    ["epoch milliseconds", String(NOW + 17_000), 17_000],
    ["seconds from now", "17", 17_000],
  ])("falls back to X-RateLimit-Reset in %s on a 429", (_unit, reset, expected) => {
    const d = decideRetry({ method: "GET", status: 429, attempt: 1, headers: { "x-ratelimit-reset": reset } }, policy);
    expect(d.delayMs).toBe(expected);
    expect(d.reason).toContain("X-RateLimit-Reset");
  });

  it("falls back to jittered exponential backoff on a 429 without headers", () => {
    const d = decideRetry({ method: "GET", status: 429, attempt: 2 }, policy);
    expect(d.delayMs).toBe(backoffDelay(2, { minRetryDelayMs: 100, maxRetryDelayMs: 1000, random: () => 0.5 }));
    expect(d.reason).toContain("backoff");
  });

  it("backs off by the failures that were not rate limits (backoffAttempt), not by the attempt number", () => {
    const afterStorm = decideRetry({ method: "GET", status: 500, attempt: 5, backoffAttempt: 1 }, policy);
    const asFifth = decideRetry({ method: "GET", status: 500, attempt: 5 }, policy);
    expect(afterStorm.delayMs).toBe(backoffDelay(1, { minRetryDelayMs: 100, maxRetryDelayMs: 1000, random: () => 0.5 }));
    expect(asFifth.delayMs).toBe(backoffDelay(5, { minRetryDelayMs: 100, maxRetryDelayMs: 1000, random: () => 0.5 }));
    expect(afterStorm.delayMs).toBeLessThan(asFifth.delayMs);
  });

  it("ignores X-RateLimit-Reset on a 5xx (sent on every response; waiting a window for a 500 would stall)", () => {
    const d = decideRetry({ method: "GET", status: 500, attempt: 1, headers: { "x-ratelimit-reset": String(NOW / 1000 + 50) } }, policy);
    expect(d.delayMs).toBeLessThanOrEqual(100);
  });

  it("honours Retry-After on a 503", () => {
    expect(decideRetry({ method: "GET", status: 503, attempt: 1, headers: { "retry-after": "4" } }, policy).delayMs).toBe(4000);
  });

  it("measures an HTTP-date Retry-After against the response's Date header", () => {
    const serverNow = NOW - 3_600_000; // local clock an hour ahead of the server
    const headers = { "retry-after": new Date(serverNow + 5000).toUTCString(), date: new Date(serverNow).toUTCString() };
    expect(decideRetry({ method: "GET", status: 429, attempt: 1, headers }, policy).delayMs).toBe(5000);
  });

  it("says which header asked for a wait and the whole of it, so a caller can hold it against a deadline", () => {
    const d = decideRetry(
      { method: "GET", status: 429, attempt: 1, headers: { "retry-after": "1000000000" } },
      { ...policy, maxServerDelayMs: 60_000 },
    );
    expect(d).toMatchObject({ retry: true, delayMs: 60_000, server: { header: "Retry-After: 1000000000 s", askedMs: 1_000_000_000_000 } });
    expect(decideRetry({ method: "GET", status: 500, attempt: 1 }, policy).server).toBeUndefined();
  });

  it("caps a server-requested wait at maxServerDelayMs", () => {
    const d = decideRetry(
      { method: "GET", status: 429, attempt: 1, headers: { "retry-after": "3600" } },
      { ...policy, maxServerDelayMs: 60_000 },
    );
    expect(d.delayMs).toBe(60_000);
  });
});

describe("backoffDelay", () => {
  const p = { minRetryDelayMs: 100, maxRetryDelayMs: 1000 };
  it("doubles per attempt up to the cap, with half of each step jittered", () => {
    expect(backoffDelay(1, { ...p, random: () => 0 })).toBe(50);
    expect(backoffDelay(1, { ...p, random: () => 0.999999 })).toBe(100);
    expect(backoffDelay(2, { ...p, random: () => 0 })).toBe(100);
    expect(backoffDelay(3, { ...p, random: () => 0 })).toBe(200);
    expect(backoffDelay(4, { ...p, random: () => 0.5 })).toBe(600);
    expect(backoffDelay(10, { ...p, random: () => 0 })).toBe(500);
    expect(backoffDelay(10, { ...p, random: () => 0.999999 })).toBe(1000);
  });

  it("varies with the random source (parallel clients spread out)", () => {
    const seen = new Set([0.1, 0.4, 0.7].map((r) => backoffDelay(3, { ...p, random: () => r })));
    expect(seen.size).toBe(3);
  });
});
