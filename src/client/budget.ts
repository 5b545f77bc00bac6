/**
 * The deadline of one call. Each call has one (a {@link Budget}: the operation's `deadlineMs`,
 * else `callTimeoutMs` from the call's start, or the caller's own when it comes first) that every
 * wait inside it, down to the limiter's, is measured against.
 */
import type { ResolvedClientOptions } from "./options";

/** Options of one call. */
export interface CallOptions {
  /**
   * The caller's own deadline, in ms from now: no wait of the call (Retry-After, the rate
   * limiter's hold, back-off) passes it or the client's deadline, whichever comes first.
   */
  deadlineInMs?: number;
  /** What messages call that deadline, e.g. `create timeout`. */
  deadlineName?: string;
}

/** The deadline of one call: no wait inside it runs past `at` (the client's clock). */
export interface Budget {
  at: number;
  /** What the deadline is, for messages: `create timeout`. */
  name: string;
}

/** What the deadline of a call is called when the client was given no `deadlineMs`. */
const CALL_TIMEOUT_NAME = "client's call timeout (callTimeoutMs)";

/**
 * The deadline of a call starting now: the operation's (`deadlineMs` from `createdAt`, when the
 * client was made), else `callTimeoutMs` from now; the caller's own (`call`) when it comes first.
 */
export function callBudget(
  options: Pick<ResolvedClientOptions, "deadlineMs" | "deadlineName" | "callTimeoutMs" | "clock">,
  createdAt: number,
  call?: CallOptions,
): Budget {
  const o = options;
  const own: Budget =
    o.deadlineMs !== undefined
      ? { at: createdAt + o.deadlineMs, name: o.deadlineName }
      : { at: o.clock.now() + o.callTimeoutMs, name: CALL_TIMEOUT_NAME };
  if (call?.deadlineInMs === undefined) return own;
  const at = o.clock.now() + Math.max(0, call.deadlineInMs);
  return at < own.at ? { at, name: call.deadlineName ?? "caller's deadline" } : own;
}
