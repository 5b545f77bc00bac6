/**
 * The cluster ids this process's creates received, so that the lost-reply recovery of one create
 * never offers another create's cluster as a candidate (`shared/domain/ownership.ts` decides the rest).
 * A process slot, like the limiters, so two copies of the package agree.
 */
import { processSlot } from "../shared/runtime/process-slot";

/** Bounded: only recent creations can be confused with a lost one. */
const MAX_CLAIMED = 10_000;

/** The process-wide set of cluster ids already returned by a create. */
export const claimedClusterIds = processSlot("client.claimed-cluster-ids.v1", () => new Set<string>());

/** Record that a create call returned `id`. */
export function claimClusterId(id: string): void {
  const set = claimedClusterIds();
  set.add(id);
  if (set.size > MAX_CLAIMED) set.delete(set.values().next().value as string);
}
