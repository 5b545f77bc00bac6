/**
 * Pure parsers for the headers that drive waiting: `Retry-After`, `X-RateLimit-*` and `Date`.
 *
 * The spec leaves the unit of `X-RateLimit-Reset` open, so the parser detects it from the
 * magnitude instead of trusting one convention.
 */

/** Header bag as we keep it: lower-case names, string values. */
export type HeaderBag = Record<string, string | undefined>;

/** Above this a reset value can only be an absolute Unix time in milliseconds (year 2001+). */
const EPOCH_MS_THRESHOLD = 1e12;
/** Above this a reset value can only be an absolute Unix time in seconds (year 2001+). */
const EPOCH_SECONDS_THRESHOLD = 1e9;
/**
 * Above this a relative reset value is taken as milliseconds rather than seconds: the plans
 * are per minute, so "seconds until reset" larger than an hour is not plausible, while
 * "milliseconds until reset" routinely is (0..60000).
 */
const DELTA_MS_THRESHOLD = 3600;
/**
 * Furthest ahead a rate-limit window can plausibly end: the plans are per minute. A reset further
 * away (the year 2286, a unit misread) describes no window of this service: it is treated as
 * unknown, never waited for.
 */
export const MAX_RESET_AHEAD_MS = 60 * 60_000;

function parseNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || !/^[+-]?\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Milliseconds to wait according to a `Retry-After` value.
 *
 * Accepts delta-seconds (`"30"`, also fractional `"1.5"`) and an HTTP-date
 * (`"Wed, 21 Oct 2015 07:28:00 GMT"`). A date in the past gives 0. Returns `undefined` when the
 * header is absent or unparseable, so the caller falls back to another source.
 *
 * @param value the raw header value
 * @param now the current time in epoch ms (injectable for tests)
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const seconds = parseNumber(value);
  if (seconds !== undefined) return seconds < 0 ? undefined : Math.ceil(seconds * 1000);
  const trimmed = value.trim();
  // Only accept things that look like a date, not any string Date.parse happens to accept.
  if (!/[a-z]/i.test(trimmed) || !/\d/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** How a raw `X-RateLimit-Reset` value was interpreted. */
export type ResetUnit = "epoch-ms" | "epoch-seconds" | "delta-ms" | "delta-seconds";

/**
 * Which unit a raw `X-RateLimit-Reset` number is in, judged by magnitude:
 * `>= 1e12` epoch milliseconds, `>= 1e9` epoch seconds, `> 3600` milliseconds from now,
 * otherwise seconds from now.
 */
export function detectResetUnit(n: number): ResetUnit {
  if (n >= EPOCH_MS_THRESHOLD) return "epoch-ms";
  if (n >= EPOCH_SECONDS_THRESHOLD) return "epoch-seconds";
  if (n > DELTA_MS_THRESHOLD) return "delta-ms";
  return "delta-seconds";
}

/**
 * Milliseconds until the rate-limit window resets, from an `X-RateLimit-Reset` value in any of
 * the units real services use (see {@link detectResetUnit}). A reset in the past gives 0; one more
 * than `MAX_RESET_AHEAD_MS` ahead, a negative one or a non-number gives undefined (unknown).
 *
 * @param value the raw header value
 * @param now the current time in epoch ms on the SERVER's clock when known (pass the response's
 *   `Date` so clock skew between us and the server cancels out), else the local clock
 */
export function parseRateLimitReset(value: string | undefined, now: number = Date.now()): number | undefined {
  const n = parseNumber(value);
  if (n === undefined || n < 0) return undefined;
  const ms = resetInMs(n, now);
  return ms > MAX_RESET_AHEAD_MS ? undefined : ms;
}

function resetInMs(n: number, now: number): number {
  switch (detectResetUnit(n)) {
    case "epoch-ms":
      return Math.max(0, Math.ceil(n - now));
    case "epoch-seconds":
      return Math.max(0, Math.ceil(n * 1000 - now));
    case "delta-ms":
      return Math.ceil(n);
    case "delta-seconds":
      return Math.ceil(n * 1000);
  }
}

/**
 * A header as messages quote it: `Retry-After: 1000000000 s` (delta-seconds get their unit),
 * `X-RateLimit-Reset: 9999999999`; undefined when the response did not carry it, or carried
 * something that is neither a number nor (for `Retry-After`) a date: text from the server goes
 * into a message only when it is a value we read.
 */
export function quoteHeader(
  headers: HeaderBag | undefined,
  name: "Retry-After" | "X-RateLimit-Reset" | "X-RateLimit-Remaining",
): string | undefined {
  const raw = headers?.[name.toLowerCase()]?.trim();
  if (raw === undefined) return undefined;
  if (parseNumber(raw) !== undefined) return name === "Retry-After" ? `${name}: ${raw} s` : `${name}: ${raw}`;
  return name === "Retry-After" && parseRetryAfter(raw) !== undefined ? `${name}: ${raw}` : undefined;
}

/** The `Date` header as epoch ms, or undefined. Used to cancel client/server clock skew. */
export function parseDateHeader(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/** Rate-limit state as read from one response. Every field is optional: headers may be missing. */
export interface RateLimitInfo {
  /** `X-RateLimit-Limit`: requests allowed per window. */
  limit?: number;
  /** `X-RateLimit-Remaining`: requests left in the current window. */
  remaining?: number;
  /** Milliseconds from the moment the response arrived until the window resets. */
  resetInMs?: number;
  /**
   * True when `resetInMs` is the server's own instruction (a 429's `Retry-After`), to be waited
   * exactly; false or absent for a reset time read from a clock printed to the second.
   */
  exact?: boolean;
  /** The headers `resetInMs` came from, as messages quote them (`X-RateLimit-Reset: 1893499260`). */
  source?: string;
}

/**
 * Read the `X-RateLimit-*` headers of one response into plain numbers.
 *
 * @param headers response headers with lower-case names
 * @param now local receive time in epoch ms; the `Date` header, when present, is used instead as
 *   the reference for an absolute reset so a skewed local clock does not distort the wait
 */
export function parseRateLimitHeaders(headers: HeaderBag, now: number = Date.now()): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = parseNumber(headers["x-ratelimit-limit"]);
  if (limit !== undefined && limit >= 0) info.limit = limit;
  const remaining = parseNumber(headers["x-ratelimit-remaining"]);
  if (remaining !== undefined) info.remaining = Math.max(0, Math.floor(remaining));
  const serverNow = parseDateHeader(headers.date);
  // The Date header has one-second resolution and is truncated, so the reset may appear up to a
  // second further away than it is: that errs on the side of waiting, which is what we want.
  const resetInMs = parseRateLimitReset(headers["x-ratelimit-reset"], serverNow ?? now);
  if (resetInMs !== undefined) info.resetInMs = resetInMs;
  return info;
}

/** Normalise any header object (axios, node) into a lower-case string bag. */
export function toHeaderBag(raw: unknown): HeaderBag {
  const bag: HeaderBag = {};
  if (!raw || typeof raw !== "object") return bag;
  const source =
    typeof (raw as { toJSON?: unknown }).toJSON === "function"
      ? ((raw as { toJSON: () => Record<string, unknown> }).toJSON() as Record<string, unknown>)
      : (raw as Record<string, unknown>);
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || value === null) continue;
    bag[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return bag;
}
