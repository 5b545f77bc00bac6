/**
 * The lost-create check: before a `POST /v1/clusters` whose outcome is unknown is sent again, the
 * clusters are listed and `judgeOwnership` (`shared/domain/ownership.ts`) decides whether the first
 * attempt made one that is this call's, one that may be another caller's, or none.
 */
import type { Budget } from "./budget";
import { DeadlineError, NetworkError, UnprovenOwnershipError } from "./errors";
import { asError, type Recovered } from "./retry-driver";
import type { ApiCluster, Clock, CreateClusterRequest } from "@pulumi-cms/contract";
import { formatDuration } from "../shared/domain/durations";
import { judgeOwnership, type NameProof } from "../shared/domain/ownership";

/** One create whose reply may have been lost, and what looking for its cluster needs. */
export interface LostCreate {
  body: CreateClusterRequest;
  nameProof: NameProof;
  /** When the create began, on the local clock. */
  startedLocal: number;
  budget: Budget;
  settleWindowMs: number;
  clock: Clock;
  /** Every cluster, within the create's budget. */
  listAll: () => Promise<ApiCluster[]>;
  /** Server clock minus local clock, as the latest answer tells. */
  serverOffsetMs: () => number;
  /** The ids other creates of the process received (`runtime.ts`): never this one's. */
  claimed: ReadonlySet<string>;
}

/**
 * The cluster the lost create made, when it is provably this call's; undefined when there is none
 * and the POST may be sent again. A cluster that may be another caller's fails the call with an
 * {@link UnprovenOwnershipError}. When no reply came at all, the server may still be working on
 * the request, so the listing is repeated for up to `settleWindowMs` first.
 */
export async function findLostCreate(lost: LostCreate, error: unknown): Promise<Recovered<ApiCluster> | undefined> {
  const { body, budget, clock } = lost;
  // A status reply means the server is done with the request; silence means it may not be.
  const settleMs = error instanceof NetworkError ? lost.settleWindowMs : 0;
  const settleUntil = clock.now() + settleMs;
  for (;;) {
    const all = await lost.listAll();
    // Compute the start on the server's clock only now: the list's Date headers have just
    // refreshed our estimate of the skew.
    const ownership = judgeOwnership(all, {
      name: body.name,
      proof: lost.nameProof,
      request: body,
      notBefore: lost.startedLocal + lost.serverOffsetMs(),
      exclude: lost.claimed,
    });
    if (ownership.verdict === "ours") return { value: ownership.cluster };
    if (ownership.verdict === "unproven") {
      throw new UnprovenOwnershipError(body.name, ownership.candidates, `the reply to the create of cluster "${body.name}" was lost`);
    }
    const now = clock.now();
    if (now >= settleUntil) return undefined;
    if (now >= budget.at) {
      // Sending it again now could make a second cluster beside one still being created.
      throw new DeadlineError({
        method: "POST",
        path: "/v1/clusters",
        wait: `the wait of up to ${formatDuration(settleMs)} (settleWindowMs) for the cluster it may have created to show up`,
        waitMs: settleUntil - now,
        remainingMs: budget.at - now,
        deadline: budget.name,
        lastError: asError(error),
      });
    }
    await clock.sleep(Math.min(settleUntil - now, budget.at - now, 1_000));
  }
}
