import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "../../../src/shared/domain/durations";
import { DEFAULT_TIMEOUTS, resolveTimeouts, timeoutStringsFrom, validateTimeouts } from "../../../src/provider/properties/timeouts";

describe("parseDuration (Go syntax)", () => {
  it.each([
    ["30m", 30 * 60_000],
    ["1h30m", 90 * 60_000],
    ["90s", 90_000],
    ["1.5h", 90 * 60_000],
    ["500ms", 500],
    ["2h45m30.5s", 2 * 3_600_000 + 45 * 60_000 + 30_500],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["3000000ns", 3],
    [".5s", 500],
    ["+10s", 10_000],
    ["-10s", -10_000],
    ["0", 0],
    [" 20m ", 20 * 60_000],
  ])("%s", (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each(["", "30", "m", "10x", "1h 30m", "1.2.3s", "h1", "--1s", "10S"])("rejects %j naming the rule", (text) => {
    expect(() => parseDuration(text)).toThrow(/duration/);
  });

  it("says a unit is needed when one is missing", () => {
    expect(() => parseDuration("30")).toThrow(/number followed by a unit/);
  });
});

describe("formatDuration", () => {
  it.each([
    [90_000, "1m30s"],
    [30 * 60_000, "30m"],
    [3_600_000 + 60_000, "1h1m"],
    [0, "0ms"],
    [1_000, "1s"],
    [250, "250ms"],
  ])("%d ms -> %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("timeouts", () => {
  it("defaults to create 30m, update 30m, delete 20m", () => {
    expect(resolveTimeouts(undefined)).toEqual({ createMs: 1_800_000, updateMs: 1_800_000, deleteMs: 1_200_000 });
    expect(DEFAULT_TIMEOUTS.deleteMs).toBe(1_200_000);
  });

  it("overrides only what is given", () => {
    expect(resolveTimeouts({ create: "1h30m" })).toEqual({ ...DEFAULT_TIMEOUTS, createMs: 5_400_000 });
    expect(resolveTimeouts({ delete: "90s", update: "" })).toEqual({ ...DEFAULT_TIMEOUTS, deleteMs: 90_000 });
  });

  it("reports each bad value under customTimeouts.<operation>", () => {
    expect(validateTimeouts({ create: "soon", update: "0s", delete: "-5m" })).toEqual([
      { property: "customTimeouts.create", reason: expect.stringMatching(/customTimeouts\.create: invalid duration "soon"/) },
      { property: "customTimeouts.update", reason: expect.stringMatching(/positive duration, got "0s"/) },
      { property: "customTimeouts.delete", reason: expect.stringMatching(/positive duration, got "-5m"/) },
    ]);
    expect(validateTimeouts({ create: 30 })).toEqual([
      { property: "customTimeouts.create", reason: expect.stringMatching(/duration string/) },
    ]);
    expect(validateTimeouts({})).toEqual([]);
    expect(validateTimeouts(undefined)).toEqual([]);
  });

  it("refuses to resolve invalid timeouts", () => {
    expect(() => resolveTimeouts({ update: "30" })).toThrow(/customTimeouts\.update/);
  });

  it("keeps only the set strings for the hidden input", () => {
    expect(timeoutStringsFrom(undefined)).toBeUndefined();
    expect(timeoutStringsFrom({})).toBeUndefined();
    expect(timeoutStringsFrom({ create: "5m", update: undefined })).toEqual({ create: "5m" });
  });
});
