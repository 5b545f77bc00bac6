/**
 * What `cms-gitops merge` concludes from a stack's locks. Pure, so that each rule is tested on
 * its own; the locks come from `locks.ts`, ages already measured by the storage's clock.
 */
import type { AgedLock, LockOwner, StackLock } from "./locks";

/**
 * Every lock older than the job timeout is a killed job's: no job runs longer. A younger one may be
 * a running update's; while there is one, nothing may be removed (the youngest is named).
 */
export function judgeLocks(locks: readonly AgedLock[], jobTimeoutMinutes: number): { stale: AgedLock[] } | { live: AgedLock } {
  const live = locks.filter((l) => l.ageSeconds <= jobTimeoutMinutes * 60).sort((a, b) => a.ageSeconds - b.ageSeconds);
  return live.length > 0 ? { live: live[0] } : { stale: [...locks] };
}

export function describeOwner(owner: LockOwner | undefined): string {
  return owner ? `${owner.username}@${owner.hostname} (pid ${owner.pid})` : "a process whose lock was gone before it could be read";
}

/**
 * After our `pulumi up` failed without recording an update: the lock of another update that
 * appeared during it, if any, which is what a lost race leaves. The CLI writes its lock, then
 * lists the stack's locks: when two updates start at the same moment, each may find the other's
 * (or find it gone between listing and reading it) and give up, or one of them wins and holds its
 * lock. So a lock that was not there before our `pulumi up` started (`before`), taken by another
 * process than ours, and seen while it ran (`seen`) or still there (`after`), is the other update's.
 * Our `pulumi up` writes exactly one lock: of two new locks whose owners are unknown (both gone
 * before they could be read), one was another's.
 */
export function rivalLock(
  before: ReadonlySet<string>,
  seen: Iterable<StackLock>,
  after: Iterable<StackLock>,
  ours: Pick<LockOwner, "pid" | "hostname">,
): StackLock | undefined {
  const appeared = new Map<string, StackLock>();
  for (const lock of [...seen, ...after]) {
    if (before.has(lock.key)) continue;
    const known = appeared.get(lock.key);
    if (!known?.owner) appeared.set(lock.key, lock.owner || !known ? lock : known);
  }
  const isOurs = (l: StackLock) => l.owner?.pid === ours.pid && l.owner.hostname === ours.hostname;
  const others = [...appeared.values()].filter((l) => !isOurs(l));
  const known = others.find((l) => l.owner);
  if (known) return known;
  return appeared.size >= 2 ? others[0] : undefined;
}
