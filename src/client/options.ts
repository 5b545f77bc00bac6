/** Client options, their defaults and their normalisation. */
import { systemClock, type Clock } from "@pulumi-cms/contract";
import type { RateLimiter } from "./limiter";
import { type ClientRuntime, defaultClientRuntime } from "./runtime";
import { DEFAULT_USER_AGENT } from "./version";
import { InvalidArgumentError } from "../shared/errors/invalid-argument-error";
import { normalizeEndpoint } from "./endpoint";

/** What a retry looked like, for logging (`onRetry`). Never carries the token. */
export interface RetryInfo {
  /** Number of the attempt that failed, starting at 1. */
  attempt: number;
  /** Wait before the next attempt. */
  delayMs: number;
  /** Why we retry, e.g. `rate limited (waiting per Retry-After)`. */
  reason: string;
  method: string;
  /** Path including `/v1`. */
  path: string;
  /** The status of the failed attempt; absent when no response came. */
  status?: number;
  /** The network error code when no response came, e.g. `ECONNREFUSED`. */
  networkCode?: string;
}

/** Options of {@link CmsClient}; every field but `endpoint` and `token` has a default. */
export interface ClientOptions {
  /** Base URL without `/v1`, e.g. `http://127.0.0.1:8787`; a trailing slash or `/v1` is accepted. */
  endpoint: string;
  /** API token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Timeout of each HTTP request (not of the whole call with retries). Default 30 000. */
  timeoutMs?: number;
  /**
   * The deadline of the operation this client serves, in ms from the client's creation (a
   * resource's `customTimeouts`, a function's timeout). No wait of any call (the rate limiter's
   * hold, a `Retry-After`, a back-off, the wait for a lost create to show up) runs past it: a wait
   * that would fails at once, naming what asked for it. Default: none; each call then has
   * `callTimeoutMs`.
   */
  deadlineMs?: number;
  /** What {@link ClientOptions.deadlineMs} is called in messages, e.g. `create timeout`. Default `client deadline (deadlineMs)`. */
  deadlineName?: string;
  /**
   * Without `deadlineMs`, the longest one call (a method, all its retries and waits, every page of
   * a listing) may wait, from its start. Default 600 000 (10 minutes).
   */
  callTimeoutMs?: number;
  /**
   * Largest response body read, in bytes; a bigger one fails naming this limit instead of being
   * buffered whole. Default 16 777 216 (16 MiB; a page of 100 clusters is about 100 KiB).
   */
  maxResponseBytes?: number;
  /** Retries of a retryable failure. Default 8. */
  retries?: number;
  /**
   * After a POST that got no reply at all (timeout, reset connection), how long to keep looking
   * for the cluster it may still be creating before sending it again. A server that was too slow
   * to answer may still be working on the request. Default 30 000 (one request timeout).
   */
  settleWindowMs?: number;
  /** First backoff step. Default 500. */
  minRetryDelayMs?: number;
  /** Backoff cap. Default 30 000. Waits the server asks for (Retry-After) are not capped by it. */
  maxRetryDelayMs?: number;
  /** `User-Agent` header. Default `pulumi-cms/<version>`. */
  userAgent?: string;
  /** Called before each retry's wait. */
  onRetry?: (info: RetryInfo) => void;
  /**
   * `true` (default): pace requests with the limiter of this endpoint + token in {@link ClientOptions.runtime}.
   * `false`: no pacing. A `RateLimiter` instance (internal, not exported): use that one (tests
   * inject a clock).
   */
  limiter?: boolean | RateLimiter;
  /**
   * Time source of retry waits, the wait for a lost create to show up, and the server-clock
   * estimate. Default the wall clock; tests pass a `ManualClock`. A limiter of this client's own
   * (`limiter: new RateLimiter({ clock })`) takes the clock separately: the shared one runs on the
   * wall clock.
   */
  clock?: Clock;
  /**
   * What this client shares with the other clients of the process: the limiter of its endpoint +
   * token and the ids creates received (internal, not exported: the provider's hosts hand the
   * process's down). Default: the one every client made without one shares.
   */
  runtime?: ClientRuntime;
}

/** Options after merging defaults and normalising. */
export interface ResolvedClientOptions {
  endpoint: string;
  token: string;
  timeoutMs: number;
  /** See {@link ClientOptions.deadlineMs}; absent when not set. */
  deadlineMs?: number;
  deadlineName: string;
  callTimeoutMs: number;
  maxResponseBytes: number;
  retries: number;
  settleWindowMs: number;
  minRetryDelayMs: number;
  maxRetryDelayMs: number;
  userAgent: string;
  /** See {@link ClientOptions.onRetry}. */
  onRetry?: (info: RetryInfo) => void;
  limiter: boolean | RateLimiter;
  clock: Clock;
  runtime: ClientRuntime;
}

/** Defaults merged under the caller's options. */
export const DEFAULT_CLIENT_OPTIONS = {
  timeoutMs: 30_000,
  deadlineName: "client deadline (deadlineMs)",
  callTimeoutMs: 600_000,
  maxResponseBytes: 16 * 1024 * 1024,
  retries: 8,
  settleWindowMs: 30_000,
  minRetryDelayMs: 500,
  maxRetryDelayMs: 30_000,
  userAgent: DEFAULT_USER_AGENT,
  limiter: true,
} as const;

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(`Invalid CMS client option ${name}: ${String(value)} (expected a number >= 0)`);
  }
  return value;
}

/** Merge `options` over {@link DEFAULT_CLIENT_OPTIONS} and validate them. */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (!options || typeof options !== "object") throw new InvalidArgumentError("CMS client options are required");
  const token = typeof options.token === "string" ? options.token.trim() : "";
  if (!token) {
    throw new InvalidArgumentError("No CMS API token: the client option `token` is required (a token of the Cluster Management Service).");
  }
  const minRetryDelayMs = nonNegative("minRetryDelayMs", options.minRetryDelayMs, DEFAULT_CLIENT_OPTIONS.minRetryDelayMs);
  const maxRetryDelayMs = Math.max(
    minRetryDelayMs,
    nonNegative("maxRetryDelayMs", options.maxRetryDelayMs, DEFAULT_CLIENT_OPTIONS.maxRetryDelayMs),
  );
  return {
    endpoint: normalizeEndpoint(options.endpoint),
    token,
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs, DEFAULT_CLIENT_OPTIONS.timeoutMs),
    deadlineMs: options.deadlineMs === undefined ? undefined : nonNegative("deadlineMs", options.deadlineMs, 0),
    deadlineName: options.deadlineName || DEFAULT_CLIENT_OPTIONS.deadlineName,
    callTimeoutMs: nonNegative("callTimeoutMs", options.callTimeoutMs, DEFAULT_CLIENT_OPTIONS.callTimeoutMs),
    maxResponseBytes: nonNegative("maxResponseBytes", options.maxResponseBytes, DEFAULT_CLIENT_OPTIONS.maxResponseBytes),
    retries: Math.floor(nonNegative("retries", options.retries, DEFAULT_CLIENT_OPTIONS.retries)),
    settleWindowMs: nonNegative("settleWindowMs", options.settleWindowMs, DEFAULT_CLIENT_OPTIONS.settleWindowMs),
    minRetryDelayMs,
    maxRetryDelayMs,
    userAgent: options.userAgent || DEFAULT_CLIENT_OPTIONS.userAgent,
    onRetry: options.onRetry,
    limiter: options.limiter ?? DEFAULT_CLIENT_OPTIONS.limiter,
    clock: options.clock ?? systemClock,
    runtime: options.runtime ?? defaultClientRuntime(),
  };
}
