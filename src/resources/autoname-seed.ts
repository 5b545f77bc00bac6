/**
 * The stack's auto-name seed: 128 random bits drawn once per stack and kept in its state, which
 * every new auto-name mixes in (see `provider/naming/auto-name.ts`). Twin stacks (the same project, stack
 * and resource names in two backends) draw different seeds, so they never compute each other's
 * names, and a cluster carrying a name derived from this stack's seed is this stack's.
 *
 * It is a resource of its own, registered before any auto-named Cluster that needs it: the engine
 * records it in the state before the first cluster create begins (the clusters wait for its
 * value), so a run killed later leaves a state from which the next run computes the same names.
 * A brand-new stack's first preview does not know it yet (its auto-names show as computed); every
 * later preview shows the names `up` creates.
 *
 * Stacks whose auto-named clusters were all created by release 0.2.0 (names from the URN alone)
 * get no seed until a cluster needs a new name, so upgrading changes nothing in them.
 */
import * as pulumi from "@pulumi/pulumi";
import { SEED_RESOURCE_NAME, SEED_TYPE_NAME } from "./type-token";
import { CLUSTER_MODULE } from "./type-token";
import { stackHasSeed, stateRecordOf } from "./state-record";
import { DRAWN_SEEDS_KEY } from "../hosts/process";
import { programRuntime } from "./program-runtime";

/** A string, so the serialized provider carries it as text rather than a reference to a module. */
const DRAWN_SEEDS: string = DRAWN_SEEDS_KEY;

/**
 * The provider the engine runs for the seed. Self-contained on purpose: the serialized text is
 * all that stacks keep, so it loads nothing from this package and no release can break it.
 * `create` notes the value in the host process (the runtime's `drawnSeeds`, `hosts/process.ts`): the clusters created
 * there next know that no earlier run can have left a cluster named from it.
 */
const seedProvider: pulumi.dynamic.ResourceProvider = {
  async create() {
    const value: string = require("node:crypto").randomBytes(16).toString("hex");
    const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
    const key = Symbol.for(DRAWN_SEEDS);
    // Plain assignment, not `??=`: the SDK parses this text with the TypeScript a project has,
    // which may be as old as 3.8 (the SDK's floor), before logical assignment existed.
    if (!g[key]) g[key] = new Set<string>();
    g[key].add(value);
    return { id: value, outs: { value } };
  },
  async diff() {
    return { changes: false };
  },
  async read(id: string, props?: Record<string, unknown>) {
    return { id, props };
  },
  async delete() {},
};

/** The seed resource. One per stack, registered by {@link autoNameSeedFor}. */
class AutoNameSeed extends pulumi.dynamic.Resource {
  /** 32 lowercase hex digits. */
  declare public readonly value: pulumi.Output<string>;

  constructor() {
    super(seedProvider, SEED_RESOURCE_NAME, { value: undefined }, {}, CLUSTER_MODULE, SEED_TYPE_NAME);
  }
}

/**
 * The seed for the auto-named Cluster `urn`: the stack's, registering it on first use. A cluster
 * the state records (it keeps its name) in a stack that has no seed yet gets none, so a stack made
 * by release 0.2.0 gets no new resource on upgrade. Always the resource's output, even when the
 * state already records the value: that makes every cluster depend on the seed in the state, so
 * a destroy deletes the seed last, and an interrupted one never leaves clusters without it.
 */
export function autoNameSeedFor(urn: pulumi.Output<string>): pulumi.Output<string | undefined> {
  return pulumi.all([stateRecordOf(urn), stackHasSeed()]).apply(([record, hasSeed]): pulumi.Output<string | undefined> => {
    if (record && !hasSeed) return pulumi.output(undefined);
    // This program run's (one, even when two copies of the package are loaded in the program).
    const { seed } = programRuntime();
    seed.resource ??= new AutoNameSeed();
    return seed.resource.value;
  });
}
