/** The auto-name a stack gives a Cluster, from the seed its state records (see `resources/autoname-seed.ts`). */
import type { PulumiProject } from "../e2e/lifecycle/harness.mjs";
import { derivedAutoName, SEED_PATTERN } from "../../src/provider/naming/auto-name";
import { CLUSTER_TYPE, SEED_TYPE } from "../../src/resources/type-token";

/** The seed recorded in the stack's state (from `pulumi stack export`); fails when there is none. */
export async function stackSeed(p: PulumiProject): Promise<string> {
  const seed = (await p.exportStack()).resources.find((r) => r.type === SEED_TYPE)?.outputs?.value;
  if (typeof seed !== "string" || !SEED_PATTERN.test(seed)) throw new Error(`stack ${p.stack} of ${p.name} records no auto-name seed`);
  return seed;
}

/** The name the stack's Cluster `resource` gets at `generation`. */
export async function seededName(p: PulumiProject, generation = 0, resource = "cluster"): Promise<string> {
  return derivedAutoName(`urn:pulumi:${p.stack}::${p.name}::${CLUSTER_TYPE}::${resource}`, generation, await stackSeed(p));
}
