/**
 * The process's runtime (src/hosts/process.ts): one per process, whichever copy of the package
 * asks, each part under the versioned name earlier releases keep theirs under, so copies of the
 * package (and releases) in one process draw from the same budgets; a test's own runtime shares
 * nothing.
 */
import { describe, expect, it } from "vitest";
import { DRAWN_SEEDS_KEY, newHostRuntime, processPart, processRuntime } from "../../src/hosts/process";

describe("processRuntime", () => {
  it("is one object per process, its parts those another copy of the package finds under their names", () => {
    const runtime = processRuntime();
    expect(processRuntime()).toBe(runtime);
    // What another copy (of this release or an earlier one) reads: the parts by name, not the object.
    expect(processPart("client.rate-limiters.v1", () => new Map())).toBe(runtime.limiters);
    expect(processPart("client.claimed-cluster-ids.v1", () => new Set())).toBe(runtime.claimedIds);
    expect(processPart("provider.shared-pollers.v1", () => new Map())).toBe(runtime.pollers);
    expect(processPart("provider.shared-readers.v1", () => new Map())).toBe(runtime.readers);
    expect(processPart("provider.listings-in-flight.v1", () => new Map())).toBe(runtime.listings);
  });

  it("holds the seeds the seed's serialized provider writes on globalThis, by the key stored in every stack's state", () => {
    const seed = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";
    // The text of `resources/autoname-seed.ts`'s provider, as the host runs it.
    const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
    const key = Symbol.for(DRAWN_SEEDS_KEY);
    if (!g[key]) g[key] = new Set<string>();
    g[key].add(seed);
    expect(processRuntime().drawnSeeds.has(seed)).toBe(true);
    g[key].delete(seed);
  });

  it("a runtime of a test's own shares nothing with the process's or another's", () => {
    const mine = newHostRuntime({ env: {} });
    const theirs = newHostRuntime();
    expect(mine.limiters).not.toBe(processRuntime().limiters);
    expect(mine.pollers).not.toBe(theirs.pollers);
    expect(mine.drawnSeeds).not.toBe(processRuntime().drawnSeeds);
    expect(mine.settings).toEqual({ env: {} });
  });
});
