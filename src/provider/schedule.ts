/**
 * When to poll next while waiting for a cluster. Pure, so the trade-off between API calls and
 * how quickly a change is noticed is unit-tested without a server or a clock.
 *
 * The goal is to notice a change (e.g. `running`) within max(2 s, 10 % of the wait so far) while
 * spending as few calls as that allows. If a poll at elapsed time `t` waits `d` before the next
 * one, a change right after the poll at `t` is seen at `t + d`; keeping `d <= 0.1 * (t + d)`
 * means `d <= t / 9`. So: one quick first poll (fast operations finish in one call), then
 * `clamp(t / 9, 2 s, 60 s)`, never past the deadline. Calls grow with the logarithm of the wait
 * (43 for a 10-minute wait; past 9 minutes the 60 s cap takes over, so an hour costs 93).
 *
 * A wait that follows its operation's request also polls once at its start, before this schedule
 * (`waiter.ts`): that catches a service that is done when it answers, for one call more on a
 * service that is not. No schedule can both poll at once and keep the 43 polls of a 10-minute
 * wait: after a poll at 0 the promise needs the next by 2 s, and the greedy sequence 0, 2, 4, ...
 * 20, then t / 9 apart, needs 44 to pass 10 minutes.
 */

/** Knobs of the schedule; see {@link DEFAULT_POLL_SCHEDULE}. */
export interface PollSchedule {
  /** Delay before the first poll, counted from the start of the wait. */
  firstDelayMs: number;
  /** Shortest delay between later polls. */
  minDelayMs: number;
  /** Longest delay between polls. */
  maxDelayMs: number;
  /** Later delays are this fraction of the time waited so far (before clamping). */
  fraction: number;
}

/** Poll after 1 s, then every max(2 s, elapsed / 9), at most every 60 s. */
export const DEFAULT_POLL_SCHEDULE: Readonly<PollSchedule> = Object.freeze({
  firstDelayMs: 1_000,
  minDelayMs: 2_000,
  maxDelayMs: 60_000,
  fraction: 1 / 9,
});

/**
 * Milliseconds to wait before the next poll.
 *
 * @param elapsedMs time since the wait started (the start may be the request that began the
 *   operation, so some time can have passed before the first poll)
 * @param remainingMs time left before the operation's deadline; the delay never exceeds it, so
 *   the last poll happens at the deadline rather than after it
 * @param schedule the knobs, {@link DEFAULT_POLL_SCHEDULE} by default
 * @param firstPoll true when no poll has happened yet: the first one comes `firstDelayMs` after
 *   the start (less whatever already elapsed)
 */
export function nextPollDelay(
  elapsedMs: number,
  remainingMs: number = Number.POSITIVE_INFINITY,
  schedule: PollSchedule = DEFAULT_POLL_SCHEDULE,
  firstPoll: boolean = elapsedMs <= 0,
): number {
  const wanted = firstPoll
    ? schedule.firstDelayMs - Math.max(0, elapsedMs)
    : Math.min(schedule.maxDelayMs, Math.max(schedule.minDelayMs, elapsedMs * schedule.fraction));
  return Math.max(0, Math.min(wanted, remainingMs));
}

/**
 * The instants (ms since the start) at which a wait of `durationMs` polls, ending with the first
 * poll at or after `durationMs`. For documentation, tests and benchmarks. (A wait that follows
 * its operation's request polls once more, at its start; see the module comment.)
 */
export function pollInstants(durationMs: number, schedule: PollSchedule = DEFAULT_POLL_SCHEDULE): number[] {
  const instants: number[] = [];
  let t = 0;
  do {
    t += nextPollDelay(t, Number.POSITIVE_INFINITY, schedule, instants.length === 0);
    instants.push(t);
  } while (t < durationMs);
  return instants;
}
