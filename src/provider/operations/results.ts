/**
 * What the operations return, in the core's own terms: each host turns them into its engine's
 * shapes (the dynamic host adds back its hidden inputs, `hosts/dynamic/requests.ts`; the native
 * host builds protocol messages).
 */
import type { ClusterDiff } from "../properties/diff";
import type { ClusterInputs, ClusterOutputs } from "../types";

/** One problem with one input, naming the property and the rule. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** `check`: the inputs with defaults filled in, and what is wrong with them. */
export interface CheckResult {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
  /**
   * The `import` id the resource keeps for its create: the request's, except for a resource in
   * the state or a replacement, which must create a cluster rather than adopt one.
   */
  importId?: unknown;
}

/** `diff`: see {@link ClusterDiff}. */
export type DiffResult = ClusterDiff;

/** `create`: the new cluster's id and outputs. */
export interface CreateResult {
  id: string;
  outs: ClusterOutputs;
}

/** `read`: the cluster as it is, and the inputs that describe it; empty when it is gone. */
export interface ReadResult {
  id?: string;
  props?: ClusterOutputs;
  inputs?: ClusterInputs;
}

/** `update`: the outputs after the change. */
export interface UpdateResult {
  outs: ClusterOutputs;
}
