/**
 * Doing the retry: p-retry drives the attempts of one call, `decideRetry` (`retry.ts`, pure) says
 * whether and how long to wait, and the recovery hooks (`verify`, `afterUnknownOutcome`) keep
 * non-idempotent or state-changing calls from doing things twice.
 */
import pRetry from "p-retry";
import type { Budget } from "./budget";
import { type ApiError, DeadlineError, isApiError } from "./errors";
import type { ResolvedClientOptions } from "./options";
import { redact } from "./redact";
import { decideRetry, isRateLimited, outcomeUnknown } from "./retry";
import { retryInputOf } from "./transport";
import { CmsError } from "../shared/errors/cms-error";
import { formatDuration } from "../shared/domain/durations";
import { OperationError } from "../shared/errors/operation-error";

/** A value produced by a recovery hook (wrapped so `void` results are distinguishable). */
export interface Recovered<T> {
  value: T;
}

export interface RetryHooks<T> {
  /** Before re-sending a request whose outcome is unknown: did the first attempt take effect? */
  verify?: (error: unknown) => Promise<Recovered<T> | undefined>;
  /** A re-sent request failed after an earlier attempt's outcome was unknown: was it done after all? */
  afterUnknownOutcome?: (error: ApiError) => Promise<Recovered<T> | undefined>;
}

/** What the driver needs of the client: its retry options, and the token to keep out of messages. */
export type RetryDriverOptions = Pick<ResolvedClientOptions, "retries" | "minRetryDelayMs" | "maxRetryDelayMs" | "clock" | "onRetry"> & {
  token: string;
};

/**
 * Run `attempt` under p-retry: it counts the attempts, stops after `retries`, and calls
 * `onFailedAttempt`, where `decideRetry` (pure) decides whether to go on and how long to wait.
 * p-retry's own timer is set to 0 because its delays follow a fixed schedule (minTimeout, factor),
 * while this service says how long to wait in each response (Retry-After, the rate-limit reset).
 * p-retry's readme does the same for a custom delay: wait inside `onFailedAttempt` (so in 9.0,
 * the current, ESM-only line; 4.x is its CommonJS line). The wait is slept on the client's
 * clock, so tests run it in virtual time. A wait that would pass the call's deadline is not
 * begun: the call fails at once with a {@link DeadlineError} naming what asked for it.
 */
export async function withRetry<T>(
  options: RetryDriverOptions,
  method: string,
  path: string,
  attempt: () => Promise<T>,
  hooks: RetryHooks<T>,
  budget: Budget,
): Promise<T> {
  const fullPath = `/v1${path}`;
  // What earlier attempts of this call showed, read by the next one:
  // a POST whose outcome is unknown is looked up (`verify`) before it is re-sent,
  let verifyPending = false;
  let lastError: unknown;
  // a later refusal may be the echo of an earlier attempt that did take effect,
  let sawUnknownOutcome = false;
  // and 429s do not count toward the backoff exponent of other failures.
  let rateLimited = 0;
  const run = async (): Promise<T> => {
    if (verifyPending && hooks.verify) {
      verifyPending = false;
      // Errors of the lookup are about other requests: stop here rather than feed them to the
      // POST's retry decision.
      const found = await hooks.verify(lastError).catch((e: unknown) => {
        throw new pRetry.AbortError(asError(e));
      });
      if (found) return found.value;
    }
    try {
      return await attempt();
    } catch (error) {
      if (sawUnknownOutcome && hooks.afterUnknownOutcome && isApiError(error)) {
        const recovered = await hooks.afterUnknownOutcome(error).catch(() => undefined);
        if (recovered) return recovered.value;
      }
      throw error;
    }
  };
  try {
    return await pRetry(run, {
      retries: options.retries,
      minTimeout: 0,
      maxTimeout: 0,
      factor: 1,
      randomize: false,
      onFailedAttempt: async (failure) => {
        const error = failure as unknown as Error & { attemptNumber: number };
        const input = retryInputOf(error, method, error.attemptNumber);
        if (!input) throw error;
        if (isRateLimited(input)) rateLimited += 1;
        input.backoffAttempt = Math.max(1, input.attempt - rateLimited);
        const decision = decideRetry(input, {
          retries: options.retries,
          minRetryDelayMs: options.minRetryDelayMs,
          maxRetryDelayMs: options.maxRetryDelayMs,
          now: () => options.clock.now(),
        });
        // Throwing from here ends p-retry with THIS error (not its "most frequent" one).
        if (!decision.retry) throw error;
        if (decision.verifyBeforeResend) {
          if (!hooks.verify) throw error;
          verifyPending = true;
          lastError = error;
        }
        if (outcomeUnknown(input)) sawUnknownOutcome = true;
        const remainingMs = budget.at - options.clock.now();
        const server = decision.server;
        if (server && server.askedMs > remainingMs) {
          // The service will not take the request before the deadline: waiting only delays the failure.
          throw new DeadlineError({
            method,
            path: fullPath,
            wait: server.header,
            waitMs: server.askedMs,
            remainingMs,
            deadline: budget.name,
            lastError: error,
          });
        }
        if (decision.delayMs > remainingMs) {
          throw new DeadlineError({
            method,
            path: fullPath,
            wait: `the back-off of ${formatDuration(decision.delayMs)} before attempt ${input.attempt + 1}`,
            waitMs: decision.delayMs,
            remainingMs,
            deadline: budget.name,
            lastError: error,
          });
        }
        try {
          options.onRetry?.({
            attempt: input.attempt,
            delayMs: decision.delayMs,
            reason: decision.reason,
            method,
            path: fullPath,
            status: input.status,
            networkCode: input.networkError ? (input.networkCode ?? "network error") : undefined,
          });
        } catch {
          // A logging callback must not change the outcome of the request.
        }
        if (decision.delayMs > 0) await options.clock.sleep(decision.delayMs);
      },
    });
  } catch (error) {
    throw finalError(error, method, fullPath, options.token);
  }
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * What leaves the client: our own error, stripped of the `attemptNumber` and `retriesLeft` p-retry
 * writes onto it (its public face is the documented fields only). Anything else
 * (a bug, an unexpected library error) is replaced by an `OperationError` of code `unexpected` with a scrubbed message, so
 * no foreign object holding request headers can escape.
 */
function finalError(error: unknown, method: string, path: string, token: string): Error {
  if (error instanceof CmsError) {
    const e = error as unknown as Record<string, unknown>;
    delete e.attemptNumber;
    delete e.retriesLeft;
    return error;
  }
  const text = error instanceof Error ? error.message : String(error);
  return new OperationError(`CMS API ${method} ${path} failed: ${redact(text, [token])}`, "unexpected");
}
