/**
 * What `cms-gitops merge` concludes from a stack's locks (src/gitops/verdicts.ts): which locks are
 * killed jobs', and when a failed `pulumi up` lost a race to another update of the stack. The
 * same rules run against real backends and a real CLI in test/e2e/docs/gitops*.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { AgedLock, StackLock } from "../../src/gitops/locks";
import { describeOwner, judgeLocks, rivalLock } from "../../src/gitops/verdicts";

const OURS = { pid: 100, hostname: "runner-a" };
const lock = (key: string, owner?: { pid: number; hostname: string }): StackLock => ({
  url: `file:///backend/.pulumi/locks/organization/p/prod/${key}`,
  key,
  owner: owner && { ...owner, username: "ci" },
});
const aged = (key: string, ageSeconds: number): AgedLock => ({ ...lock(key, { pid: 7, hostname: "h" }), ageSeconds });

describe("judgeLocks: which locks a killed job left", () => {
  it("with no lock, there is nothing to remove", () => {
    expect(judgeLocks([], 60)).toEqual({ stale: [] });
  });

  it("locks older than the job timeout are all removed", () => {
    const locks = [aged("a.json", 3601), aged("b.json", 7200)];
    expect(judgeLocks(locks, 60)).toEqual({ stale: locks });
  });

  it("one lock younger than the job timeout (or exactly as old) keeps every lock, and is the one named", () => {
    expect(judgeLocks([aged("old.json", 9000), aged("young.json", 3600)], 60)).toEqual({ live: aged("young.json", 3600) });
    expect(judgeLocks([aged("a.json", 30), aged("b.json", 5)], 60)).toEqual({ live: aged("b.json", 5) });
  });

  it("with a job timeout of 0, any lock that has aged at all is a killed job's", () => {
    expect(judgeLocks([aged("a.json", 0.5)], 0)).toEqual({ stale: [aged("a.json", 0.5)] });
  });
});

describe("rivalLock: a failed `pulumi up` lost a race to another update", () => {
  it("no lock appeared: no rival (the failure was something else)", () => {
    expect(rivalLock(new Set(), [], [], OURS)).toBeUndefined();
  });

  it("only our own lock appeared: no rival", () => {
    expect(rivalLock(new Set(), [lock("ours.json", OURS)], [], OURS)).toBeUndefined();
  });

  it("another process's lock is there after the failure (it won): that is the rival", () => {
    const theirs = lock("theirs.json", { pid: 200, hostname: "runner-b" });
    expect(rivalLock(new Set(), [], [theirs], OURS)).toEqual(theirs);
  });

  it("another process's lock appeared and is gone again (both gave up): that is the rival", () => {
    const theirs = lock("theirs.json", { pid: 200, hostname: "runner-b" });
    expect(rivalLock(new Set(), [lock("ours.json", OURS), theirs], [], OURS)).toEqual(theirs);
  });

  it("the same pid on another host is another process", () => {
    const theirs = lock("theirs.json", { pid: OURS.pid, hostname: "runner-b" });
    expect(rivalLock(new Set(), [theirs], [], OURS)).toEqual(theirs);
  });

  it("a lock that was there before our `pulumi up` started is no rival", () => {
    const old = lock("old.json", { pid: 200, hostname: "runner-b" });
    expect(rivalLock(new Set(["old.json"]), [old], [old], OURS)).toBeUndefined();
  });

  it("two new locks, both gone before they could be read: one was another's (our update writes one)", () => {
    expect(rivalLock(new Set(), [lock("x.json"), lock("y.json")], [], OURS)?.key).toMatch(/^[xy]\.json$/);
    expect(rivalLock(new Set(), [lock("x.json")], [], OURS)).toBeUndefined();
  });

  it("a lock seen unread, then read after the failure, is judged by what it says", () => {
    const theirs = lock("theirs.json", { pid: 200, hostname: "runner-b" });
    expect(rivalLock(new Set(), [lock("theirs.json")], [theirs], OURS)).toEqual(theirs);
    expect(rivalLock(new Set(), [lock("ours.json")], [lock("ours.json", OURS)], OURS)).toBeUndefined();
  });

  it("says who took a lock, or that it could not be read", () => {
    expect(describeOwner({ pid: 200, hostname: "runner-b", username: "ci" })).toBe("ci@runner-b (pid 200)");
    expect(describeOwner(undefined)).toBe("a process whose lock was gone before it could be read");
  });
});
