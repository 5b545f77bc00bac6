/**
 * Auto-name seeds drawn in this process (see `resources/autoname-seed.ts`). The engine creates a
 * stack's seed in the dynamic-provider host, the process that then creates the stack's clusters,
 * and the seed's provider notes the value it drew here. A seed drawn here has never been seen by
 * an earlier run, so no cluster can carry a name derived from it unless this process created it:
 * a create whose name comes from such a seed has no interrupted run's cluster to look for.
 */
import { processSingleton } from "@pulumi-cms/contract";

/** `Symbol.for` key of the process-wide set; the seed's serialized provider writes it by this text. */
export const DRAWN_SEEDS_KEY = "pulumi-cms.autoname-seeds-drawn-here";

/** The process-wide set of seeds drawn here. */
export function drawnSeeds(): Set<string> {
  return processSingleton(Symbol.for(DRAWN_SEEDS_KEY), () => new Set<string>());
}

/** True when `seed` was drawn in this process. */
export function seedDrawnHere(seed: unknown): boolean {
  return typeof seed === "string" && drawnSeeds().has(seed);
}
