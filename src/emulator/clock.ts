/**
 * Time source of the emulator. Every status is derived from timestamps compared with
 * `clock.now()`, so tests can swap in a {@link ManualClock} and step through transitions
 * deterministically instead of sleeping.
 */

/** Anything that tells the current time in epoch milliseconds. */
export interface Clock {
  /** The current time, epoch milliseconds. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to: for deterministic tests. */
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

/** ISO 8601 UTC text of an epoch-milliseconds time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
