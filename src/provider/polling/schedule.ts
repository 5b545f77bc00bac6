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
 * A wait that follows its operation's request polls at once instead (`waiter.ts`): that catches
 * a service that is done when it answers. That early poll takes the place of the first one, and
 * the schedule goes on from its second (3 s), so a wait makes as many polls as without it. The
 * price is the first second: a change between the early poll and 1 s is seen at 3 s, 2 s later
 * than the promise; every later change is seen when it would have been. (No schedule can poll at
 * once and keep the promise from 0 with 43 polls for 10 minutes: after a poll at 0 it needs the
 * next by 2 s, and the greedy sequence 0, 2, 4, ... 20, then t / 9 apart, needs 44.)
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
 * Milliseconds to wait after an early poll (one made at `elapsedMs`, before the schedule's first):
 * until the schedule's second instant, or the usual delay when the early poll came later than
 * that first one would have.
 */
export function delayAfterEarlyPoll(
  elapsedMs: number,
  remainingMs: number = Number.POSITIVE_INFINITY,
  schedule: PollSchedule = DEFAULT_POLL_SCHEDULE,
): number {
  const second = schedule.firstDelayMs + nextPollDelay(schedule.firstDelayMs, Number.POSITIVE_INFINITY, schedule, false);
  const wanted = Math.max(second - elapsedMs, nextPollDelay(elapsedMs, Number.POSITIVE_INFINITY, schedule, false));
  return Math.max(0, Math.min(wanted, remainingMs));
}

/**
 * The instants (ms since the start) at which a wait of `durationMs` polls, ending with the first
 * poll at or after `durationMs`. `early`: the wait follows its operation's request, so it polls
 * at 0 and then from the schedule's second instant (see the module comment). For documentation,
 * tests and benchmarks.
 */
export function pollInstants(durationMs: number, schedule: PollSchedule = DEFAULT_POLL_SCHEDULE, early = false): number[] {
  const instants: number[] = early ? [0] : [];
  let t = 0;
  while (instants.length === 0 || t < durationMs) {
    t +=
      early && instants.length === 1
        ? delayAfterEarlyPoll(t, Number.POSITIVE_INFINITY, schedule)
        : nextPollDelay(t, Number.POSITIVE_INFINITY, schedule, instants.length === 0);
    instants.push(t);
  }
  return instants;
}
