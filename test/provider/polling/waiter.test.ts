import { describe, expect, it } from "vitest";
import { judgeStatus } from "../../../src/provider/polling/waiter";

describe("the waiter's verdict on a status", () => {
  it.each([
    ["running", "running", "done"],
    ["provisioning", "running", "wait"],
    ["scaling", "running", "wait"],
    ["upgrading", "running", "wait"],
    ["some-new-status", "running", "wait"],
    ["error", "running", "failed"],
    ["deleting", "running", "failed"],
    ["deleting", "gone", "wait"],
    ["running", "gone", "wait"],
    ["error", "gone", "failed"],
  ] as const)("%s while waiting for %s: %s", (status, target, verdict) => {
    expect(judgeStatus(status, target)).toBe(verdict);
  });
});
