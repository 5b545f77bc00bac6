/**
 * Client-side rate limiter: reads `X-RateLimit-Remaining` / `X-RateLimit-Reset` from every
 * response and paces requests so the plan's limit is never hit, instead of waiting for 429s.
 *
 * One limiter exists per endpoint + token in the process (the server counts per token), shared
 * by every client, so many resources of one stack draw from one budget (`runtime.ts`).
 */
import { MAX_RESET_AHEAD_MS, type RateLimitInfo } from "./headers";
import { DeadlineError } from "./errors/deadline-error";
import { formatDuration } from "../shared/domain/durations";
import { type Clock, omitUndefined, systemClock } from "@pulumi-cms/contract";

/** What the limiter knows about the current window. All times are local epoch ms. */
export interface LimiterState {
  /** Requests allowed per window (`X-RateLimit-Limit`), when known. */
  limit?: number;
  /** Our estimate of requests left in the window (server's count minus requests in flight). */
  remaining?: number;
  /** When the window resets, on the local clock. */
  resetAt?: number;
  /** True when `resetAt` came from `Retry-After`: waited exactly, without the safety margin. */
  resetExact?: boolean;
  /** The headers `resetAt` came from, as messages quote them. */
  resetSource?: string;
  /** When the last request was let through. */
  lastSentAt?: number;
  /** Requests let through whose response has not arrived. */
  inFlight: number;
}

/** Tuning of the pacing; merged over {@link DEFAULT_LIMITER_OPTIONS}. */
export interface PacingOptions {
  /**
   * Pace only once `remaining` is at or below this fraction of the limit. Above it requests go
   * out at once: a small stack should not crawl at 100/60 s when the budget is nowhere near used.
   */
  paceBelowFraction: number;
  /**
   * Extra wait after the reset when the window is used up. The reset header has one-second
   * resolution and the server's window may end a little after the value it printed.
   */
  safetyMarginMs: number;
  /**
   * Cap on the total hold of one request (every wait of one `acquire`), guarding against a
   * misread reset header: past it the request goes out and the service's answer decides.
   */
  maxWaitMs: number;
}

/** Options of a {@link RateLimiter}: pacing plus an injectable clock. */
export interface LimiterOptions extends PacingOptions {
  /** Time source of the pacing and its waits; tests inject a `ManualClock` or their own. */
  clock: Clock;
}

/** Defaults of {@link LimiterOptions}. */
export const DEFAULT_LIMITER_OPTIONS: LimiterOptions = {
  paceBelowFraction: 0.5,
  safetyMarginMs: 1000,
  maxWaitMs: 90_000,
  clock: systemClock,
};

/**
 * How long to hold the next request, given the window state. Pure.
 *
 * - Nothing known: 0 (the first response will tell us the state).
 * - Window used up (`remaining <= 0`): wait for the reset plus a safety margin (also when the
 *   printed reset has just passed: it may be truncated to the second).
 * - Window already over (and budget left): 0.
 * - Budget at or below `paceBelowFraction` of the limit: spread what remains evenly over the
 *   time left (to the reset plus margin): leave `timeLeft / remaining` between requests.
 * - Otherwise: 0.
 */
export function computePacingDelay(state: LimiterState, now: number, options: Partial<PacingOptions> = {}): number {
  const o = { ...DEFAULT_LIMITER_OPTIONS, ...omitUndefined(options) };
  if (state.remaining === undefined || state.resetAt === undefined) return 0;
  // The printed reset may be truncated to the second, so the window can end up to a margin later.
  const end = state.resetAt + (state.resetExact ? 0 : o.safetyMarginMs);
  const timeLeft = end - now;
  if (state.remaining <= 0) return Math.min(Math.max(0, timeLeft), o.maxWaitMs);
  if (now >= state.resetAt) return 0;
  const threshold = state.limit !== undefined ? state.limit * o.paceBelowFraction : Infinity;
  if (state.remaining > threshold) return 0;
  if (state.lastSentAt === undefined) return 0;
  const interval = timeLeft / state.remaining;
  return Math.min(Math.max(0, Math.ceil(state.lastSentAt + interval - now)), o.maxWaitMs);
}

/** The deadline of the request asking to go out: no hold runs past it. */
export interface LimiterBudget {
  /** Time left before the deadline, ms. */
  remainingMs: number;
  /** What the deadline is, for messages: `create timeout`. */
  deadline: string;
  /** The request, for messages. */
  method: string;
  /** Its path, including `/v1`. */
  path: string;
}

/** Handle for one let-through request; give it back via {@link RateLimiter.complete}. */
export interface LimiterTicket {
  /** When the request was let through (local epoch ms). */
  readonly sentAt: number;
  /** How long `acquire` held it. */
  readonly waitedMs: number;
}

/**
 * Paces requests of one endpoint + token. See the module comment.
 *
 * Shared by every client of the process, so no caller waits for another: each `acquire` holds
 * only its own request, at most `maxWaitMs` in all and never past its own deadline. Taking a
 * slot (the check and the count) is synchronous, so concurrent callers see each other's counts.
 */
export class RateLimiter {
  private readonly options: LimiterOptions;
  private readonly state: LimiterState = { inFlight: 0 };
  /** Acquirers holding until the next response (see `acquire`). */
  private responseWaiters: Array<() => void> = [];
  /** Whether any response has arrived (with or without rate-limit headers). */
  private answered = false;

  constructor(options: Partial<LimiterOptions> = {}) {
    this.options = { ...DEFAULT_LIMITER_OPTIONS, ...omitUndefined(options) };
  }

  /** A copy of the current window state (for tests and diagnostics). */
  snapshot(): LimiterState {
    return { ...this.state };
  }

  /** Resolves at the next `complete` call, or after `maxMs` (real time). */
  private nextResponse(maxMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, maxMs));
      timer.unref?.();
      this.responseWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Wait until a request may be sent, then count it against the window.
   *
   * @param budget the request's deadline: a hold that would pass it throws {@link DeadlineError}
   *   at once, naming the headers that asked for it
   */
  async acquire(budget?: LimiterBudget): Promise<LimiterTicket> {
    const clock = this.options.clock;
    const started = clock.now();
    const deadlineAt = budget ? started + budget.remainingMs : Number.POSITIVE_INFINITY;
    // Holds for a first response run on real timers, which an injected clock does not see.
    let heldForResponse = 0;
    // Re-check after every wait: responses arriving meanwhile may have changed the picture.
    for (;;) {
      const now = clock.now();
      const capLeft = this.options.maxWaitMs - (now - started);
      if (capLeft <= 0) break;
      if (!this.answered && this.state.remaining === undefined && this.state.inFlight > 0) {
        // Nothing known about the window yet, and a request is out: hold the others until its
        // response says how much is left. A new process (each `pulumi up` starts one) may be
        // joining a window an earlier one has nearly spent; a burst would then meet 429s.
        const hold = Math.min(FIRST_RESPONSE_WAIT_MS, capLeft, this.options.maxWaitMs - heldForResponse, deadlineAt - now);
        if (hold <= 0) break;
        heldForResponse += hold;
        await this.nextResponse(hold);
        continue;
      }
      const delay = Math.min(computePacingDelay(this.state, now, this.options), capLeft);
      if (delay <= 0) break;
      if (budget && now + delay > deadlineAt) {
        const s = this.state;
        const why = [s.remaining !== undefined && s.remaining <= 0 ? "the window is spent" : "pacing", s.resetSource].filter(Boolean);
        throw new DeadlineError({
          method: budget.method,
          path: budget.path,
          wait: `the rate limiter's hold of ${formatDuration(delay)} (${why.join(", ")})`,
          waitMs: delay,
          remainingMs: deadlineAt - now,
          deadline: budget.deadline,
        });
      }
      await clock.sleep(delay);
    }
    const now = clock.now();
    const s = this.state;
    if (s.resetAt !== undefined && now >= s.resetAt + this.options.safetyMarginMs) {
      // The window we knew about is over; assume a fresh one until a response says otherwise.
      s.resetAt = undefined;
      s.resetSource = undefined;
      s.remaining = s.limit;
    }
    if (s.remaining !== undefined) s.remaining -= 1;
    s.lastSentAt = now;
    s.inFlight += 1;
    return { sentAt: now, waitedMs: now - started };
  }

  /**
   * Record the outcome of a request let through by {@link acquire}.
   *
   * @param info rate-limit headers of its response; omit when no response arrived. A reset more
   *   than `MAX_RESET_AHEAD_MS` ahead describes no window of a per-minute plan: it is ignored.
   * @param receivedAt local time the response arrived
   */
  complete(info?: RateLimitInfo, receivedAt: number = this.options.clock.now()): void {
    const s = this.state;
    s.inFlight = Math.max(0, s.inFlight - 1);
    const waiters = this.responseWaiters;
    this.responseWaiters = [];
    // After the state update below (resolution runs later, as a microtask).
    for (const wake of waiters) wake();
    if (!info) return;
    this.answered = true;
    if (info.limit !== undefined) s.limit = info.limit;
    const plausible = info.resetInMs !== undefined && info.resetInMs <= MAX_RESET_AHEAD_MS;
    const resetAt = plausible ? receivedAt + (info.resetInMs as number) : s.resetAt;
    if (info.remaining !== undefined) {
      // Requests still in flight may or may not be in the server's count: assume not, which can
      // only make us slower, never push us over.
      const estimate = info.remaining - s.inFlight;
      const sameWindow = s.resetAt !== undefined && resetAt !== undefined && Math.abs(resetAt - s.resetAt) < 1500;
      // Within one window responses can arrive out of order: never let a stale, higher count win.
      s.remaining = sameWindow && s.remaining !== undefined ? Math.min(s.remaining, estimate) : estimate;
    }
    if (resetAt !== undefined) s.resetAt = resetAt;
    if (plausible) {
      s.resetExact = info.exact === true;
      s.resetSource = info.source;
    }
  }
}

/** Longest hold for a first response: a caller that never calls `complete` must not block others. */
const FIRST_RESPONSE_WAIT_MS = 5_000;
