/**
 * What the stack's state records for a Cluster, read by the program when it registers one.
 *
 * The engine replaces a resource targeted by `pulumi up --replace` (or tainted) without showing
 * its provider the old state: `check` runs as for a brand-new resource. The provider derives
 * auto-names from the URN (see `provider/naming/auto-name.ts`), so without this it would compute the old
 * cluster's name again, and could even take the old cluster for one that an interrupted run
 * left behind. The program can read the state through the engine's builtin
 * `readStackResourceOutputs` invoke, once per program run, and hands the provider the recorded
 * name as the hidden input `__inState`; check then picks the next name, as for any replacement.
 *
 * Best effort: where the invoke is not available (test mocks, a backend that refuses it) the
 * record is simply absent and the provider relies on what it sees itself.
 */
import * as pulumi from "@pulumi/pulumi";
import { programRuntime } from "./program-runtime";
import { SEED_TYPE } from "./type-token";

/** The part of a recorded Cluster the provider uses. */
export interface StateRecord {
  /** Name of the cluster the state holds for this URN. */
  name: string;
  /** True when that name is an auto-name (the provider derived it). */
  autonamed: boolean;
}

const READ_STACK_RESOURCE_OUTPUTS = "pulumi:pulumi:readStackResourceOutputs";

/** Outputs of every resource of this stack, by URN, as last recorded; `{}` when unreadable. */
function recordedOutputs(): Promise<Record<string, unknown>> {
  const stack = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  // One read per program run.
  const slot = programRuntime().stackOutputs;
  if (slot.read?.stack !== stack) {
    const outputs = Promise.resolve()
      .then(() => pulumi.runtime.invoke(READ_STACK_RESOURCE_OUTPUTS, { stackName: stack }))
      .then((res: unknown) => {
        const outs = (res as { outputs?: unknown } | undefined)?.outputs;
        return outs && typeof outs === "object" ? (outs as Record<string, unknown>) : {};
      })
      .catch(() => ({}));
    slot.read = { stack, outputs };
  }
  return slot.read.outputs;
}

/**
 * The state's record of the Cluster `urn`, or undefined when the state has none (a first create)
 * or cannot be read.
 */
export function stateRecordOf(urn: pulumi.Input<string>): pulumi.Output<StateRecord | undefined> {
  return pulumi.output(urn).apply(async (u) => {
    try {
      const entry = (await recordedOutputs())[u] as { outputs?: { name?: unknown; __autonamed?: unknown } } | undefined;
      const name = entry?.outputs?.name;
      return typeof name === "string" && name !== "" ? { name, autonamed: entry?.outputs?.__autonamed === true } : undefined;
    } catch {
      return undefined;
    }
  });
}

/** True when the state records the stack's auto-name seed (see `autoname-seed.ts`). */
export function stackHasSeed(): Promise<boolean> {
  return Promise.resolve()
    .then(recordedOutputs)
    .then((outputs) => Object.keys(outputs).some((urn) => urn.includes(`::${SEED_TYPE}::`)))
    .catch(() => false);
}
