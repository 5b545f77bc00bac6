/**
 * Per-token rate limits in fixed 60-second windows. A window opens at the token's first
 * request and closes 60 s later; the next request after that opens a new one.
 */
import { ServiceError } from "./errors";
import type { Plan } from "../types";

/** Requests per minute of each plan (spec, Limits). */
export const PLAN_LIMITS: Readonly<Record<Plan, number>> = { community: 100, pro: 1000, enterprise: 10000 };

export const WINDOW_MS = 60_000;

interface Window {
  start: number;
  count: number;
}

/** The outcome of counting one request: the header values to send. */
export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix epoch seconds of the window's end. */
  reset: number;
  headers: Record<string, string>;
}

/** The service side of rate limiting: one fixed one-minute window per token, sized by its plan. */
export class TokenRateWindows {
  private readonly windows = new Map<string, Window>();
  private readonly limits: Record<Plan, number>;

  constructor(overrides: Partial<Record<Plan, number>> = {}) {
    this.limits = { ...PLAN_LIMITS, ...overrides };
  }

  /** The limit of a plan. */
  limitOf(plan: Plan): number {
    return this.limits[plan];
  }

  /**
   * Counts one request of `token`. Returns the rate-limit headers, or throws 429
   * `rate_limited` (carrying the same headers plus `Retry-After`) past the limit.
   */
  hit(token: string, plan: Plan, now: number): RateDecision {
    const limit = this.limits[plan];
    let w = this.windows.get(token);
    if (!w || now >= w.start + WINDOW_MS) {
      w = { start: now, count: 0 };
      this.windows.set(token, w);
    }
    w.count += 1;
    const end = w.start + WINDOW_MS;
    const reset = Math.ceil(end / 1000);
    const remaining = Math.max(0, limit - w.count);
    const headers: Record<string, string> = {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(reset),
    };
    if (w.count > limit) {
      const retryAfter = Math.max(1, Math.ceil((end - now) / 1000));
      throw new ServiceError(
        429,
        "rate_limited",
        `Rate limit exceeded: the ${plan} plan allows ${limit} requests per minute; retry in ${retryAfter} s`,
        { ...headers, "retry-after": String(retryAfter) },
      );
    }
    return { limit, remaining, reset, headers };
  }

  /**
   * Counts one request like {@link hit} but never throws: for answers that take precedence
   * over a 429 (unknown route, wrong method). Past the limit the headers say 0 remaining.
   */
  count(token: string, plan: Plan, now: number): Record<string, string> {
    try {
      return this.hit(token, plan, now).headers;
    } catch (e) {
      const { "retry-after": _retry, ...headers } = (e as { headers: Record<string, string> }).headers;
      return headers;
    }
  }

  /** Forgets every window. */
  reset(): void {
    this.windows.clear();
  }
}

/** Parses `community=100,pro=1000,enterprise=10000` (any subset). */
export function parsePlanLimits(text: string): Partial<Record<Plan, number>> {
  const out: Partial<Record<Plan, number>> = {};
  for (const part of text.split(",")) {
    const m = /^\s*(community|pro|enterprise)\s*=\s*(\d+)\s*$/.exec(part);
    if (!m || Number(m[2]) < 1)
      throw new Error(`--rate-limits: "${part}" must look like plan=N with plan community, pro or enterprise and N >= 1`);
    out[m[1] as Plan] = Number(m[2]);
  }
  return out;
}
