/**
 * The retry DECISION, kept pure: given what happened to one attempt, say whether to try again,
 * how long to wait first and why. Doing the retry (sleeping, re-sending, looking up a cluster
 * whose creation reply was lost) is `retry-driver.ts`'s job.
 */
import { parseDateHeader, parseRateLimitReset, parseRetryAfter, quoteHeader, type HeaderBag } from "./headers";
import { omitUndefined } from "@pulumi-cms/contract";

/** What happened to one attempt. */
export interface RetryInput {
  /** HTTP method, any case. */
  method: string;
  /** Response status, absent when no response arrived. */
  status?: number;
  /** The `error` code of the response body, when there was one. */
  code?: string;
  /** True when no response arrived (reset, refused, timeout). */
  networkError?: boolean;
  /** Low-level code of a network error (`ECONNREFUSED`, `ECONNRESET`, ...). */
  networkCode?: string;
  /**
   * True when the endpoint is on this machine (a loopback host or address): a refused connection
   * there means nothing listens, not a service restarting behind a load balancer.
   */
  loopback?: boolean;
  /** Number of the attempt that just failed, starting at 1. */
  attempt: number;
  /**
   * How many of the failures so far (this one included) were not rate limits; drives the
   * exponential backoff, defaulting to `attempt`. A 429 says "wait for the window", not "the
   * service is struggling", so a storm of them must not make a later 5xx wait as if it were the
   * ninth failure in a row.
   */
  backoffAttempt?: number;
  /** Response headers with lower-case names. */
  headers?: HeaderBag;
}

/** Knobs of the decision; merged over {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Backoff of the first retry. */
  minRetryDelayMs: number;
  /** Cap of the exponential backoff. */
  maxRetryDelayMs: number;
  /**
   * Cap on a wait the SERVER asked for (Retry-After / reset). Deliberately separate from
   * `maxRetryDelayMs`: re-sending before the server's window ends only earns another 429.
   * It exists to survive a misread or absurd header.
   */
  maxServerDelayMs: number;
  /** Random source in [0, 1), injectable so tests are deterministic. */
  random: () => number;
  /** Clock in epoch ms, injectable for HTTP-date and absolute reset values. */
  now: () => number;
}

/** The decision. */
export interface RetryDecision {
  /** Try again? */
  retry: boolean;
  /** Wait this long first (0 when not retrying). */
  delayMs: number;
  /** Human-readable why, e.g. `rate limited (Retry-After)` or `status 404 is not retryable`. */
  reason: string;
  /**
   * Set when the failed request was a POST whose outcome is unknown (reply lost, or a 5xx that
   * may have come after processing): re-sending blindly could create a duplicate, so the caller
   * must first check whether the first attempt took effect.
   */
  verifyBeforeResend: boolean;
  /**
   * When the wait is one the server asked for: the header as messages quote it, and the full wait
   * it asked for (`delayMs` may be capped), so a caller can tell whether it fits its deadline.
   */
  server?: { header: string; askedMs: number };
}

/** Defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 8,
  minRetryDelayMs: 500,
  maxRetryDelayMs: 30_000,
  maxServerDelayMs: 5 * 60_000,
  random: Math.random,
  now: Date.now,
};

/** Methods that can be re-sent as-is: repeating them does not change the end state. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"]);

/**
 * Retries of a connection refused on this machine (`loopback`): together a few seconds of
 * back-off, enough for a local emulator or proxy that is still starting, not a minute of waiting
 * for a port nothing will ever listen on.
 */
const LOCAL_REFUSAL_RETRIES = 3;

/** Network failures where the request certainly never reached the server. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * The code of a request to an `https://` endpoint whose server speaks plain HTTP (Node's own code
 * for it is EPROTO, which other TLS failures share).
 */
export const PLAIN_HTTP_CODE = "ERR_SSL_WRONG_VERSION_NUMBER";

/**
 * Failures that are not transient (a bad URL or option, a typo'd host name, a cancelled
 * request, TLS to a plain HTTP server): retrying only delays the error.
 */
const PERMANENT_NETWORK_CODES = new Set([
  "ENOTFOUND",
  PLAIN_HTTP_CODE,
  "ERR_INVALID_URL",
  "ERR_BAD_OPTION",
  "ERR_BAD_OPTION_VALUE",
  "ERR_NOT_SUPPORT",
  "ERR_CANCELED",
  "ERR_FR_TOO_MANY_REDIRECTS",
  "ERR_DEPRECATED",
  "ERR_RESPONSE_TOO_LARGE",
]);

/** Statuses that say "not processed, come back later", so even a POST may be re-sent. */
const NOT_PROCESSED_STATUSES = new Set([408, 429, 503]);

/**
 * Exponential backoff with "equal jitter": half of the step is fixed, half random, so waits
 * never collapse to ~0 (which full jitter allows) but parallel clients still spread out.
 *
 * @param attempt number of the attempt that failed, starting at 1
 */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, "minRetryDelayMs" | "maxRetryDelayMs" | "random">): number {
  const exp = Math.min(policy.maxRetryDelayMs, policy.minRetryDelayMs * 2 ** Math.max(0, attempt - 1));
  const half = exp / 2;
  return Math.round(half + policy.random() * half);
}

/**
 * How long the server asked us to wait: `Retry-After`, else (when `useReset`) `X-RateLimit-Reset`
 * in any unit. Undefined when neither header says anything usable.
 *
 * `useReset` is only right for a rate-limit refusal: services send the reset header on every
 * response, and waiting for the end of the window after a 500 would stall for no reason.
 */
export function serverRequestedDelay(
  headers: HeaderBag | undefined,
  now: number = Date.now(),
  useReset = true,
): { delayMs: number; source: string; header: string } | undefined {
  if (!headers) return undefined;
  // Absolute values (HTTP-date, epoch reset) are on the server's clock: measure them against the
  // response's own Date header when it has one, so a skewed local clock does not distort waits.
  const serverNow = parseDateHeader(headers.date) ?? now;
  const retryAfter = parseRetryAfter(headers["retry-after"], serverNow);
  if (retryAfter !== undefined) return { delayMs: retryAfter, source: "Retry-After", header: quoteHeader(headers, "Retry-After") ?? "" };
  if (!useReset) return undefined;
  const reset = parseRateLimitReset(headers["x-ratelimit-reset"], serverNow);
  if (reset !== undefined) return { delayMs: reset, source: "X-RateLimit-Reset", header: quoteHeader(headers, "X-RateLimit-Reset") ?? "" };
  return undefined;
}

/** True when the failure is a rate limit (429 or an `error: "rate_limited"` body). */
export function isRateLimited(input: Pick<RetryInput, "status" | "code">): boolean {
  return input.status === 429 || input.code === "rate_limited";
}

/**
 * True when the failed request may or may not have taken effect: the reply was lost after the
 * request could have reached the server, or a 5xx that can come after processing. False for a
 * refusal that certainly happened before processing (429, 503, 408, connection refused).
 */
export function outcomeUnknown(input: Pick<RetryInput, "status" | "code" | "networkError" | "networkCode">): boolean {
  if (isRateLimited(input)) return false;
  if (input.networkError) return !NOT_SENT_CODES.has(input.networkCode ?? "");
  if (input.status !== undefined && input.status >= 500) return !NOT_PROCESSED_STATUSES.has(input.status);
  return false;
}

/**
 * Decide whether a failed attempt should be retried.
 *
 * - 429 / `rate_limited`: retry any method (the request was not processed), waiting for
 *   `Retry-After`, else `X-RateLimit-Reset`, else exponential backoff with jitter.
 * - 5xx and network errors: retry GET/PATCH/DELETE with backoff (honouring `Retry-After` when
 *   sent). A POST is re-sent directly only when it certainly was not processed (503, 408,
 *   connection refused); otherwise `verifyBeforeResend` is set. A connection refused on this
 *   machine (`loopback`) is retried three times only.
 * - Any other status (400, 401, 403, 404, 409, 422, ...): never retried.
 *
 * @param input what happened
 * @param options policy, merged over {@link DEFAULT_RETRY_POLICY}
 */
export function decideRetry(input: RetryInput, options: Partial<RetryPolicy> = {}): RetryDecision {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...omitUndefined(options) };
  const method = input.method.toUpperCase();
  const no = (reason: string): RetryDecision => ({ retry: false, delayMs: 0, reason, verifyBeforeResend: false });

  let what: string;
  if (isRateLimited(input)) {
    what = "rate limited";
  } else if (input.networkError) {
    const code = input.networkCode ?? "network error";
    what = `no response (${code})`;
    if (PERMANENT_NETWORK_CODES.has(code)) return no(`${what} is not transient`);
    if (code === "ECONNREFUSED" && input.loopback && (input.backoffAttempt ?? input.attempt) > LOCAL_REFUSAL_RETRIES) {
      return no(`${what}: nothing listens there on this machine`);
    }
  } else if (input.status !== undefined && (input.status >= 500 || input.status === 408)) {
    what = `status ${input.status}`;
  } else if (input.status !== undefined) {
    return no(`status ${input.status} is not retryable`);
  } else {
    return no("unknown failure is not retryable");
  }

  // A POST that may have been processed must not be re-sent blindly: it could create a duplicate.
  const verify = method === "POST" && outcomeUnknown(input);
  if (method !== "POST" && !IDEMPOTENT.has(method) && !isRateLimited(input)) {
    return no(`${what}: ${method} is not safe to re-send`);
  }
  if (input.attempt > policy.retries) {
    return no(`${what}: gave up after ${policy.retries} retries`);
  }

  const server = serverRequestedDelay(input.headers, policy.now(), isRateLimited(input));
  if (server !== undefined) {
    const delayMs = Math.min(server.delayMs, policy.maxServerDelayMs);
    return {
      retry: true,
      delayMs,
      reason: `${what} (waiting per ${server.source})`,
      verifyBeforeResend: verify,
      server: { header: server.header, askedMs: server.delayMs },
    };
  }
  const delayMs = backoffDelay(input.backoffAttempt ?? input.attempt, policy);
  return { retry: true, delayMs, reason: `${what} (exponential backoff)`, verifyBeforeResend: verify };
}
