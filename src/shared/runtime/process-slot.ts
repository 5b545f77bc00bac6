/**
 * Process slots: what lives as long as the process rather than one call, each value beside the
 * code that uses it. The dynamic-provider host runs every operation of a stack in one process, and
 * sharing across those operations (one rate limiter per token, one status poller per connection,
 * ...) is what keeps a stack of many clusters within the token's budget.
 *
 * A program and the provider host can each `require` their own copy of the package into one
 * process, and both copies must draw from the same budgets: so the slots live in one map on
 * `globalThis` ({@link processSingleton}), each under a name its owner gives it. A name carries the
 * version of its value's shape, so a later release with another shape keeps its own. The map
 * knows nothing of what it holds.
 */
import { processSingleton } from "@pulumi-cms/contract";

/** `Symbol.for` key of the map of every slot (a fresh process has none: tests empty it). */
const PROCESS_SLOTS_KEY = "pulumi-cms.process-slots.v1";

/** The map of every slot of the process, by name. */
export function processSlots(): Map<string, unknown> {
  return processSingleton(Symbol.for(PROCESS_SLOTS_KEY), () => new Map<string, unknown>());
}

/**
 * The slot `name`: a function returning its value, made by `init` on first use (and again after
 * the slot is emptied). Keep the function, not the value: the value is the process's.
 */
export function processSlot<T>(name: string, init: () => T): () => T {
  return () => {
    const slots = processSlots();
    if (!slots.has(name)) slots.set(name, init());
    return slots.get(name) as T;
  };
}
