import { CmsError } from "../../shared/errors/cms-error";
import { describeCandidates } from "../../shared/domain/ownership";
import type { ApiCluster } from "@pulumi-cms/contract";

/**
 * Clusters exist that may be the one a create made, but nothing proves which (or whether any) is
 * (see `shared/domain/ownership.ts`), so none was taken and nothing was created in its place. The
 * message names the candidates; the caller says how to choose.
 */
export class UnprovenOwnershipError extends CmsError {
  override readonly name = "UnprovenOwnershipError";
  /** Always `unproven_ownership`. */
  readonly code = "unproven_ownership";

  /**
   * @param clusterName the name the create asked for
   * @param candidates the clusters that could be the create's
   * @param situation what happened, as the start of the message (e.g. "the reply to the create was lost")
   */
  constructor(
    readonly clusterName: string,
    readonly candidates: readonly ApiCluster[],
    situation: string,
  ) {
    const count = candidates.length === 1 ? "1 cluster carries" : `${candidates.length} clusters carry`;
    super(
      `${situation}: ${count} the name "${clusterName}" and could be the one it made, but nothing proves it ` +
        `(another stack may have made it): ${describeCandidates(candidates)}. None was taken, and no cluster was created in its place.`,
    );
  }
}
