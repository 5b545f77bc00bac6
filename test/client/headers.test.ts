import { describe, expect, it } from "vitest";
import {
  detectResetUnit,
  parseDateHeader,
  parseRateLimitHeaders,
  parseRateLimitReset,
  parseRetryAfter,
  toHeaderBag,
} from "../../src/client";

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0); // 1893499200000

describe("parseRetryAfter", () => {
  it("reads delta-seconds as milliseconds", () => {
    expect(parseRetryAfter("0", NOW)).toBe(0);
    expect(parseRetryAfter("7", NOW)).toBe(7000);
    expect(parseRetryAfter(" 12 ", NOW)).toBe(12000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
  });

  it("reads an HTTP-date relative to now, clamping the past to 0", () => {
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter("Tue, 01 Jan 2030 12:00:05 GMT", NOW)).toBe(5000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  });

  it("returns undefined for absent, negative or garbage values", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
    expect(parseRetryAfter("-3", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("12abc", NOW)).toBeUndefined();
  });
});

describe("parseRateLimitReset", () => {
  it("detects the unit from the magnitude", () => {
    expect(detectResetUnit(1_893_499_260_000)).toBe("epoch-ms");
    expect(detectResetUnit(1_893_499_260)).toBe("epoch-seconds");
    expect(detectResetUnit(45_000)).toBe("delta-ms");
    expect(detectResetUnit(45)).toBe("delta-seconds");
    expect(detectResetUnit(0)).toBe("delta-seconds");
  });

  it("reads epoch seconds against now", () => {
    expect(parseRateLimitReset(String(NOW / 1000 + 42), NOW)).toBe(42_000);
  });

  it("reads epoch milliseconds against now", () => {
    expect(parseRateLimitReset(String(NOW + 1234), NOW)).toBe(1234);
  });

  it("reads seconds from now", () => {
    expect(parseRateLimitReset("30", NOW)).toBe(30_000);
    expect(parseRateLimitReset("0", NOW)).toBe(0);
  });

  it("reads milliseconds from now when the number is too large to be seconds of a minute window", () => {
    expect(parseRateLimitReset("45000", NOW)).toBe(45_000);
  });

  it("clamps a reset in the past to 0", () => {
    expect(parseRateLimitReset(String(NOW / 1000 - 10), NOW)).toBe(0);
    expect(parseRateLimitReset(String(NOW - 10), NOW)).toBe(0);
  });

  it("treats a reset more than an hour ahead as unknown: a per-minute window cannot end then", () => {
    expect(parseRateLimitReset("9999999999", NOW)).toBeUndefined(); // the year 2286
    expect(parseRateLimitReset(String(NOW / 1000 + 7200), NOW)).toBeUndefined();
    expect(parseRateLimitReset(String(NOW / 1000 + 3600), NOW)).toBe(3_600_000);
  });

  it("returns undefined for absent or garbage values", () => {
    expect(parseRateLimitReset(undefined, NOW)).toBeUndefined();
    expect(parseRateLimitReset("", NOW)).toBeUndefined();
    expect(parseRateLimitReset("tomorrow", NOW)).toBeUndefined();
    expect(parseRateLimitReset("-5", NOW)).toBeUndefined();
  });
});

describe("parseRateLimitHeaders", () => {
  it("reads limit, remaining and reset", () => {
    const info = parseRateLimitHeaders(
      { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "7", "x-ratelimit-reset": String(NOW / 1000 + 20) },
      NOW,
    );
    expect(info).toEqual({ limit: 100, remaining: 7, resetInMs: 20_000 });
  });

  it("measures an absolute reset against the server's Date header, cancelling local clock skew", () => {
    // Local clock runs 5 minutes ahead of the server; without the Date header we would think the
    // window had long ended.
    const serverNow = NOW;
    const localNow = NOW + 5 * 60_000;
    const info = parseRateLimitHeaders(
      {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(serverNow / 1000 + 20),
        date: new Date(serverNow).toUTCString(),
      },
      localNow,
    );
    expect(info.resetInMs).toBe(20_000);
    expect(parseRateLimitHeaders({ "x-ratelimit-reset": String(serverNow / 1000 + 20) }, localNow).resetInMs).toBe(0);
  });

  it("leaves out what is missing or unreadable", () => {
    expect(parseRateLimitHeaders({}, NOW)).toEqual({});
    expect(parseRateLimitHeaders({ "x-ratelimit-remaining": "many" }, NOW)).toEqual({});
  });

  it("parses the Date header", () => {
    expect(parseDateHeader(new Date(NOW).toUTCString())).toBe(NOW);
    expect(parseDateHeader(undefined)).toBeUndefined();
    expect(parseDateHeader("not a date")).toBeUndefined();
  });

  it("normalises header names to lower case and joins arrays", () => {
    expect(toHeaderBag({ "Retry-After": "3", "Set-Cookie": ["a", "b"], nothing: undefined })).toEqual({
      "retry-after": "3",
      "set-cookie": "a, b",
    });
  });
});
