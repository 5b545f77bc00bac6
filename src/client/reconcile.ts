/**
 * Finding the cluster a POST created when its reply was lost. Pure: the client lists the
 * clusters, this decides which one (if any) is ours.
 */
import type { ApiCluster, CreateClusterRequest } from "../shared/wire-types";

/**
 * How far before our request's start (on the server's clock, as we estimate it) a cluster may
 * have been created and still count as ours. Our estimate of the server's clock comes from the
 * one-second `Date` header (error up to ±500 ms); the rest is slack. Kept small on purpose: a
 * same-named cluster created just before our request would otherwise be taken for ours.
 */
export const CREATED_AT_TOLERANCE_MS = 1_000;

/**
 * Pick the cluster our lost POST created, or `undefined` when it evidently did not create one.
 *
 * Names are not unique, so a candidate must have exactly the requested name, have been created
 * after the request started (`notBefore`, on the server's clock, minus a tolerance), and match
 * the requested shape (size, counts, phase). A cluster that existed before we sent the request
 * is never taken. If several match (an earlier attempt of ours also landed), the newest wins.
 *
 * @param clusters every cluster visible to the token (all pages)
 * @param request the body we POSTed
 * @param notBefore server-clock epoch ms at which the first attempt was sent
 * @param toleranceMs see {@link CREATED_AT_TOLERANCE_MS}
 * @param claimed ids already handed to another create call of this process: two resources
 *   creating same-named clusters at once must not both end up with the same one
 */
export function findCreatedCluster(
  clusters: readonly ApiCluster[],
  request: CreateClusterRequest,
  notBefore: number,
  toleranceMs: number = CREATED_AT_TOLERANCE_MS,
  claimed: ReadonlySet<string> = new Set(),
): ApiCluster | undefined {
  const created = (c: ApiCluster): number => {
    const t = Date.parse(c.created_at);
    return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
  };
  const candidates = clusters.filter(
    (c) =>
      c.name === request.name &&
      !claimed.has(c.id) &&
      created(c) >= notBefore - toleranceMs &&
      c.status !== "deleting" &&
      matchesRequest(c, request),
  );
  if (candidates.length === 0) return undefined;
  return candidates.reduce((newest, c) => (created(c) > created(newest) ? c : newest));
}

/**
 * True when cluster `c` has the shape that request `r` asked for. Compares the fields the server
 * echoes back from the request; a field the server leaves out is not held against the cluster.
 * (Nothing of ours can have changed a cluster whose id never reached us, so they still match.)
 */
export function matchesRequest(c: ApiCluster, r: CreateClusterRequest): boolean {
  if (c.control_planes !== undefined && c.control_planes !== r.control_planes) return false;
  if (c.workers !== undefined && c.workers !== r.workers) return false;
  if (c.node_size !== undefined && c.node_size !== r.node_size) return false;
  const phase = r.phase ?? "managed";
  if (c.phase !== undefined && c.phase !== phase) return false;
  return true;
}

/**
 * Ids returned by `createCluster` in this process (on globalThis, like the limiters, so two
 * copies of the package agree). Bounded: only recent creations can be confused with a lost one.
 */
const CLAIMED_SYMBOL = Symbol.for("pulumi-cms.client.claimedClusterIds");
const MAX_CLAIMED = 10_000;

/** The process-wide set of cluster ids already returned by a create. */
export function claimedClusterIds(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  let set = g[CLAIMED_SYMBOL];
  if (!set) {
    set = new Set();
    g[CLAIMED_SYMBOL] = set;
  }
  return set;
}

/** Record that a create call returned `id`. */
export function claimClusterId(id: string): void {
  const set = claimedClusterIds();
  set.add(id);
  if (set.size > MAX_CLAIMED) set.delete(set.values().next().value as string);
}
