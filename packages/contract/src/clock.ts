/**
 * The one time source of the package. The emulator derives every status from `clock.now()`; the
 * client, the limiter and the provider's waits also sleep on it. Tests and benchmarks swap in a
 * {@link ManualClock} and step through time instead of sleeping.
 */

/** Tells the time and waits. */
export interface Clock {
  /** The current time, epoch milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock, or as soon as `signal` aborts (a timer set
   * again: the caller then ignores the wake-up).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(resolve, Math.max(0, ms));
      signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    }),
};

/**
 * A clock that moves only when told to, for deterministic tests. {@link ManualClock.sleep} moves it
 * forward by the time slept, at once: code that waits on this clock runs in virtual time, and an
 * emulator sharing the clock sees that time pass.
 */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: number | Date = Date.UTC(2025, 0, 1)) {
    this.current = typeof start === "number" ? start : start.getTime();
  }
  /** The time the clock was last moved to. */
  now(): number {
    return this.current;
  }
  /** Moves the clock forward by `ms` milliseconds (negative values are refused). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError("ManualClock can only move forward");
    this.current += ms;
  }
  /** Moves the clock forward by `ms` milliseconds (rounded; negative counts as 0) and resolves. */
  async sleep(ms: number): Promise<void> {
    this.advance(Math.max(0, Math.round(ms)));
  }
  /** Moves the clock forward by `s` seconds. */
  advanceSeconds(s: number): void {
    this.advance(Math.round(s * 1000));
  }
  /** Sets the clock to an absolute time (not before the current one). */
  set(time: number | Date): void {
    const t = typeof time === "number" ? time : time.getTime();
    if (t < this.current) throw new RangeError("ManualClock can only move forward");
    this.current = t;
  }
}
