/**
 * Deciding, for each Cluster create that a killed `pulumi up` left pending in the stack, which
 * cluster (if any) it created. Pure: `cli.ts` reads the stack and the service and acts on it.
 *
 * The engine writes a create into the state as a pending operation, with its checked inputs,
 * before it calls the provider; a run killed before the provider answered leaves it there, and
 * only `pulumi refresh --import-pending-creates URN ID` or `--clear-pending-creates` resolves it.
 * The pending inputs are the evidence:
 * - an auto-name derived from the URN (see `provider/naming.ts`) is this resource's alone: the
 *   cluster carrying it, not yet in the state and not being deleted, is the one (the rule the
 *   provider's own takeover follows, `provider/adoption.ts`);
 * - an explicit name is anybody's: only a cluster with that name and shape created after the
 *   create was checked (`__requestedAt`, with {@link CLOCK_TOLERANCE_MS} for clock skew), not in
 *   the state, counts. A cluster that existed before (console, another stack) never does.
 * Several candidates are never guessed between.
 */
import { matchesRequest } from "../client/reconcile";
import type { ApiCluster } from "../shared/wire-types";
import { toCreateRequest } from "../provider/mapping";
import type { ClusterInputs } from "../provider/types";

export { CLUSTER_TYPE } from "../resources/type-token";

/** How far a cluster's `created_at` may precede the recorded check time and still count. */
export const CLOCK_TOLERANCE_MS = 5_000;

/** A pending create of a Cluster, as `pulumi stack export` shows it. */
export interface PendingCreate {
  urn: string;
  inputs: Record<string, unknown>;
}

/** What to do about the pending creates. */
export interface RecoveryPlan {
  /** Pending creates whose cluster was found: complete them with this id. */
  imports: Array<{ urn: string; id: string; name: string }>;
  /** Pending creates that created nothing (or whose cluster is in the state already): drop them. */
  clears: Array<{ urn: string; name: string }>;
  /** Pending creates with several candidates: a person must choose. */
  ambiguous: Array<{ urn: string; name: string; candidates: ApiCluster[] }>;
}

/**
 * @param pending the Cluster pending creates
 * @param inState ids of the clusters the state holds
 * @param clusters every cluster visible to the token
 */
export function planRecovery(
  pending: readonly PendingCreate[],
  inState: ReadonlySet<string>,
  clusters: readonly ApiCluster[],
  toleranceMs: number = CLOCK_TOLERANCE_MS,
): RecoveryPlan {
  const plan: RecoveryPlan = { imports: [], clears: [], ambiguous: [] };
  const taken = new Set<string>();
  for (const op of pending) {
    const name = String(op.inputs.name ?? "");
    const candidates = clusters.filter((c) => !inState.has(c.id) && !taken.has(c.id) && isCandidate(c, op.inputs, toleranceMs));
    if (candidates.length === 0) plan.clears.push({ urn: op.urn, name });
    else if (candidates.length === 1) {
      plan.imports.push({ urn: op.urn, id: candidates[0].id, name });
      taken.add(candidates[0].id);
    } else plan.ambiguous.push({ urn: op.urn, name, candidates });
  }
  return plan;
}

function isCandidate(c: ApiCluster, inputs: Record<string, unknown>, toleranceMs: number): boolean {
  if (c.name !== inputs.name || c.status === "deleting") return false;
  if (inputs.__autonamed === true) return true;
  // An explicit name proves nothing: the cluster must have been made as requested, after this
  // create began.
  if (!matchesRequest(c, toCreateRequest(inputs as unknown as ClusterInputs))) return false;
  const requestedAt = typeof inputs.__requestedAt === "string" ? Date.parse(inputs.__requestedAt) : Number.NaN;
  const createdAt = Date.parse(c.created_at);
  if (Number.isNaN(requestedAt) || Number.isNaN(createdAt)) return false;
  return createdAt >= requestedAt - toleranceMs;
}
