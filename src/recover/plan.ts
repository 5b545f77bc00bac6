/**
 * Deciding, for each Cluster create that a killed `pulumi up` left pending in the stack, which
 * cluster (if any) it created. Pure: `cli.ts` reads the stack and the service and acts on it.
 *
 * The engine writes a create into the state as a pending operation, with its checked inputs,
 * before it calls the provider; a run killed before the provider answered leaves it there, and
 * only `pulumi refresh --import-pending-creates URN ID` or `--clear-pending-creates` resolves it.
 * The pending inputs are the evidence, judged by `shared/domain/ownership.ts` as the provider's own
 * takeover judges it:
 * - an auto-name derived from the URN and the stack's seed (see `provider/naming/auto-name.ts`) is this
 *   resource's alone: the cluster carrying it, not yet in the state and not being deleted, is
 *   the one;
 * - any other name (explicit, or a 0.2.0 auto-name) proves nothing: the clusters with that name
 *   and shape created after the create was checked (`__requestedAt`, with
 *   {@link CLOCK_TOLERANCE_MS} for clock skew) are only candidates, recorded when a person names
 *   one (`--adopt ID`);
 * - with no candidate at all the create made nothing, and the pending create is dropped (or a
 *   later run took its cluster over, which the stack records: the pending create is stale).
 */
import { judgeOwnership } from "../shared/domain/ownership";
import type { ApiCluster } from "@pulumi-cms/contract";
import { nameProofOf } from "../provider/naming/adoption";
import { toCreateRequest } from "../provider/properties/mapping";
import type { ClusterInputs } from "../provider/types";

import { CLUSTER_TYPE } from "../resources/type-token";
import { NATIVE_CLUSTER_TYPE } from "../hosts/native/type-token";

/** The Cluster's type in either face's state: the dynamic `Cluster` and the native plugin's. */
export const CLUSTER_TYPES: ReadonlySet<string> = new Set([CLUSTER_TYPE, NATIVE_CLUSTER_TYPE]);

/** How far a cluster's `created_at` may precede the recorded check time and still be a candidate. */
export const CLOCK_TOLERANCE_MS = 5_000;

/** A pending create of a Cluster, as `pulumi stack export` shows it. */
export interface PendingCreate {
  urn: string;
  inputs: Record<string, unknown>;
}

/** What to do about the pending creates. */
export interface RecoveryPlan {
  /** Pending creates whose cluster is known: complete them with this id. */
  imports: Array<{ urn: string; id: string; name: string; why: "seeded name" | "named with --adopt" }>;
  /**
   * Pending creates with no cluster to record (no candidate at all): drop them. `recorded`: the
   * stack records a cluster of that name already (a later run took it over), so the operation is
   * only stale.
   */
  clears: Array<{ urn: string; name: string; recorded?: string }>;
  /** Pending creates with candidates that nothing proves: a person must choose (`--adopt ID`). */
  undecided: Array<{ urn: string; name: string; candidates: ApiCluster[]; reason: "no-proof" | "ambiguous" }>;
  /** `--adopt` ids that match no pending create: the run must stop, naming them. */
  unmatchedAdoptions: string[];
}

/**
 * @param pending the Cluster pending creates
 * @param inState ids of the clusters the state holds
 * @param clusters every cluster visible to the token
 * @param adopt ids a person named (`--adopt`): each is recorded for the pending create whose name
 *   it carries
 */
export function planRecovery(
  pending: readonly PendingCreate[],
  inState: ReadonlySet<string>,
  clusters: readonly ApiCluster[],
  adopt: ReadonlySet<string> = new Set(),
  toleranceMs: number = CLOCK_TOLERANCE_MS,
): RecoveryPlan {
  const plan: RecoveryPlan = { imports: [], clears: [], undecided: [], unmatchedAdoptions: [] };
  const taken = new Set<string>(inState);
  const adopted = new Set<string>();
  for (const op of pending) {
    const inputs = op.inputs as unknown as ClusterInputs;
    const name = String(inputs.name ?? "");
    const chosen = clusters.filter((c) => adopt.has(c.id) && c.name === name && !taken.has(c.id) && c.status !== "deleting");
    if (chosen.length === 1) {
      plan.imports.push({ urn: op.urn, id: chosen[0].id, name, why: "named with --adopt" });
      taken.add(chosen[0].id);
      adopted.add(chosen[0].id);
      continue;
    }
    const requestedAt = typeof inputs.__requestedAt === "string" ? Date.parse(inputs.__requestedAt) : Number.NaN;
    const ownership = judgeOwnership(clusters, {
      name,
      // The auto-name derives from the URN the check saw: the dynamic face's inputs record it
      // (`__urn`); the native face's are the pending operation's own.
      proof: nameProofOf(inputs, (inputs as { __urn?: unknown }).__urn ?? op.urn),
      request: toCreateRequest(inputs),
      // Without a recorded time (an older release), every same-named cluster of its shape is a candidate.
      notBefore: Number.isNaN(requestedAt) ? undefined : requestedAt,
      toleranceMs,
      exclude: taken,
    });
    if (ownership.verdict === "ours") {
      plan.imports.push({ urn: op.urn, id: ownership.cluster.id, name, why: "seeded name" });
      taken.add(ownership.cluster.id);
    } else if (ownership.verdict === "none") {
      const recorded = clusters.find((c) => c.name === name && inState.has(c.id))?.id;
      plan.clears.push(recorded ? { urn: op.urn, name, recorded } : { urn: op.urn, name });
    } else plan.undecided.push({ urn: op.urn, name, candidates: ownership.candidates, reason: ownership.reason });
  }
  plan.unmatchedAdoptions = [...adopt].filter((id) => !adopted.has(id));
  return plan;
}
