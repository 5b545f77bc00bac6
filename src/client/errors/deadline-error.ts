import { formatDuration } from "../../shared/domain/durations";
import { CmsError } from "../../shared/errors/cms-error";

/** Everything a {@link DeadlineError} is built from. */
export interface DeadlineErrorInit {
  /** HTTP method of the request that would have waited. */
  method: string;
  /** Path of that request, including `/v1`. */
  path: string;
  /** What asked for the wait, with its value: `Retry-After: 1000000000 s`, `the back-off of 16s after status 502`. */
  wait: string;
  /** How long it asked for. */
  waitMs: number;
  /** Time left before the deadline when it asked. */
  remainingMs: number;
  /** What the deadline is: `create timeout`, `client deadline (deadlineMs)`. */
  deadline: string;
  /** The failed attempt that led to the wait; absent when the request was never sent. */
  lastError?: Error;
}

/**
 * A wait would have run past the operation's deadline, so the client stopped at once instead:
 * the wait a header asked for (`Retry-After`, the rate-limit window), a back-off, the rate
 * limiter's hold. Not transient: waiting is exactly what the deadline does not allow.
 */
export class DeadlineError extends CmsError {
  /** Always `deadline_exceeded`. */
  readonly code = "deadline_exceeded";
  /** HTTP method of the request. */
  readonly method: string;
  /** Path of the request, including `/v1`. */
  readonly path: string;
  /** What asked for the wait, with its value. */
  readonly wait: string;
  /** How long it asked for, ms. */
  readonly waitMs: number;
  /** Time that was left before the deadline, ms. */
  readonly remainingMs: number;
  /** What the deadline is. */
  readonly deadline: string;

  constructor(init: DeadlineErrorInit) {
    // After the failed attempt's own message the wait starts a sentence; alone it follows the request.
    const wait = init.lastError ? init.wait.charAt(0).toUpperCase() + init.wait.slice(1) : init.wait;
    const before = init.lastError ? `${init.lastError.message.replace(/\.?\s*$/, ".")} ` : `CMS API ${init.method} ${init.path}: `;
    const left = formatDuration(Math.max(0, init.remainingMs));
    super(`${before}${wait} exceeds the remaining ${left} of the ${init.deadline}, so it was not ${init.lastError ? "retried" : "sent"}.`, {
      cause: init.lastError,
    });
    this.name = new.target.name;
    this.method = init.method;
    this.path = init.path;
    this.wait = init.wait;
    this.waitMs = init.waitMs;
    this.remainingMs = init.remainingMs;
    this.deadline = init.deadline;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}
