import { describe, expect, it } from "vitest";
import { DEFAULT_POLL_SCHEDULE, delayAfterEarlyPoll, nextPollDelay, pollInstants } from "../../../src/provider/polling/schedule";

describe("poll schedule", () => {
  it("polls quickly at first so fast operations cost one call", () => {
    expect(nextPollDelay(0)).toBe(1_000);
    // Time spent sending the request that started the operation counts towards the first second.
    expect(nextPollDelay(150, Infinity, DEFAULT_POLL_SCHEDULE, true)).toBe(850);
    expect(nextPollDelay(1_500, Infinity, DEFAULT_POLL_SCHEDULE, true)).toBe(0);
    expect(pollInstants(900)).toEqual([1_000]);
  });

  it("slows down as the wait grows, bounded by 2 s and 60 s", () => {
    expect(nextPollDelay(1_000)).toBe(2_000);
    expect(nextPollDelay(90_000)).toBeCloseTo(10_000, 6);
    expect(nextPollDelay(600_000)).toBe(60_000);
    expect(nextPollDelay(3_600_000)).toBe(60_000);
    // Never a fixed fast loop: delays never shrink as time passes.
    let previous = 0;
    for (let t = 1_000; t < 4 * 3_600_000; t += 5_000) {
      const d = nextPollDelay(t);
      expect(d).toBeGreaterThanOrEqual(previous);
      previous = d;
    }
  });

  it("never sleeps past the deadline", () => {
    expect(nextPollDelay(300_000, 1_500)).toBe(1_500);
    expect(nextPollDelay(300_000, 0)).toBe(0);
    expect(nextPollDelay(300_000, -10)).toBe(0);
  });

  it("notices a change within max(2 s, 10 % of the wait) at every moment", () => {
    // Worst case: the change lands just after a poll; it is seen at the next one.
    const instants = [0, ...pollInstants(2 * 3_600_000)];
    for (let i = 1; i < instants.length; i++) {
      const gap = instants[i] - instants[i - 1];
      const seenAt = instants[i];
      expect(gap).toBeLessThanOrEqual(Math.max(2_000, 0.1 * seenAt) + 1e-6);
    }
  });

  it("costs a logarithmic number of calls", () => {
    const tenMinutes = pollInstants(600_000).length;
    const oneHour = pollInstants(3_600_000).length;
    // With a 10 % latency bound the floor is ~log(600/20)/log(10/9) + 10 ≈ 43 for 10 minutes.
    expect(tenMinutes).toBeGreaterThanOrEqual(35);
    expect(tenMinutes).toBeLessThanOrEqual(45);
    expect(oneHour).toBeLessThanOrEqual(95);
    expect(pollInstants(60_000).length).toBeLessThanOrEqual(22);
  });

  it("an early poll takes the first poll's place: the next is the schedule's second, and a wait costs no more polls", () => {
    expect(delayAfterEarlyPoll(0)).toBe(3_000);
    expect(delayAfterEarlyPoll(40)).toBe(2_960);
    // A shared early poll that came when the first was due is that first poll.
    expect(delayAfterEarlyPoll(1_000)).toBe(2_000);
    expect(delayAfterEarlyPoll(1_800)).toBe(2_000);
    expect(delayAfterEarlyPoll(0, 500)).toBe(500);
    const early = pollInstants(600_000, DEFAULT_POLL_SCHEDULE, true);
    expect(early.slice(0, 3)).toEqual([0, 3_000, 5_000]);
    expect(early.length).toBe(pollInstants(600_000).length);
    expect(early.length).toBe(43);
    // From the second poll on, the very instants of the wait without it.
    expect(early.slice(1)).toEqual(pollInstants(600_000).slice(1));
  });

  it("with an early poll, still notices within max(2 s, 10 %) every change after the first second", () => {
    const instants = pollInstants(2 * 3_600_000, DEFAULT_POLL_SCHEDULE, true);
    expect(instants[1] - instants[0]).toBe(3_000);
    for (let i = 2; i < instants.length; i++) {
      expect(instants[i] - instants[i - 1]).toBeLessThanOrEqual(Math.max(2_000, 0.1 * instants[i]) + 1e-6);
    }
  });

  it("exposes its knobs", () => {
    const slow = { ...DEFAULT_POLL_SCHEDULE, fraction: 0.3 };
    expect(nextPollDelay(100_000, Infinity, slow)).toBe(30_000);
  });
});
