/**
 * Whether an existing cluster is a given create's: the one rule behind every takeover. The
 * provider's create (a cluster left by an interrupted run), the client's recovery of a lost POST
 * reply and `cms-recover` (the creates a killed run left pending) all ask it; the `import` option
 * is the user's own word and needs no inference (`provider/naming/adoption.ts` checks that the program
 * describes the cluster).
 *
 * Names are not unique in the API, and the create body carries nothing else a stack could mark a
 * cluster with. So the only evidence that no other stack can produce is a name that no other
 * stack can compute: an auto-name derived from the resource's URN *and a random seed recorded in
 * this stack's state* (see `provider/naming/auto-name.ts`). Everything else proves nothing:
 * - an explicit name is anybody's (a console cluster, another stack, a colleague);
 * - an auto-name derived from the URN alone (release 0.2.0) is shared by twin stacks: the same
 *   project, stack and resource names in another backend;
 * - "created after our request began, with our name and shape" is also true of another stack's
 *   create that raced ours.
 *
 * Without proof nothing is taken: the caller fails and names the candidates, so a person decides.
 * Pure: no I/O.
 */
import { type ApiCluster, type CreateClusterRequest, wireArguments } from "@pulumi-cms/contract";

/** What a create's name proves about a cluster that carries it. */
export type NameProof =
  /** Derived from a seed only this stack holds: a cluster carrying it is this create's. */
  | "seeded"
  /** Anybody's name: a cluster carrying it may be another stack's. */
  | "none";

/**
 * How far a cluster's `created_at` may precede the moment the create began (as the caller
 * estimates it on the server's clock) and still be a candidate. Only narrows the candidates shown
 * for an unproven name; it is never evidence.
 */
export const CREATED_AT_TOLERANCE_MS = 1_000;

/** The question: is one of `clusters` the cluster this create made? */
export interface OwnershipQuery {
  /** The name the create asked for. */
  name: string;
  /** What that name proves. */
  proof: NameProof;
  /** The body of the create: an unproven candidate must have its shape. */
  request?: CreateClusterRequest;
  /**
   * Epoch ms (server clock) at which the create began: an unproven candidate created earlier
   * (beyond `toleranceMs`) existed before it and is not a candidate at all.
   */
  notBefore?: number;
  /** See {@link CREATED_AT_TOLERANCE_MS}. */
  toleranceMs?: number;
  /** Ids that are known to be other resources' (the state's clusters, another create's reply). */
  exclude?: ReadonlySet<string>;
}

/** The answer of {@link judgeOwnership}. */
export type Ownership =
  /** This cluster is the create's: take it. */
  | { verdict: "ours"; cluster: ApiCluster }
  /** No cluster carries the create's name (as a candidate): nothing was made, or it is gone. */
  | { verdict: "none" }
  /**
   * Clusters that could be the create's, but nothing proves which (or whether any) is: take none,
   * name them. `ambiguous`: several carry a seeded name (a copy of the state ran too).
   */
  | { verdict: "unproven"; candidates: ApiCluster[]; reason: "no-proof" | "ambiguous" };

/**
 * Decide whether one of `clusters` is the create's. A cluster being deleted, or one in
 * `exclude`, is never a candidate.
 *
 * - A seeded name: the one cluster carrying it is ours; several: unproven (`ambiguous`).
 * - Any other name: never ours. Clusters with that name (and, when given, the requested shape
 *   and a creation time after `notBefore`) are the candidates a person must choose between.
 */
export function judgeOwnership(clusters: readonly ApiCluster[], query: OwnershipQuery): Ownership {
  const named = clusters.filter((c) => c.name === query.name && c.status !== "deleting" && !query.exclude?.has(c.id));
  if (query.proof === "seeded") {
    if (named.length === 0) return { verdict: "none" };
    if (named.length === 1) return { verdict: "ours", cluster: named[0] };
    return { verdict: "unproven", candidates: named, reason: "ambiguous" };
  }
  const tolerance = query.toleranceMs ?? CREATED_AT_TOLERANCE_MS;
  const candidates = named.filter(
    (c) =>
      (query.request === undefined || matchesRequest(c, query.request)) &&
      (query.notBefore === undefined || createdAt(c) >= query.notBefore - tolerance),
  );
  return candidates.length === 0 ? { verdict: "none" } : { verdict: "unproven", candidates, reason: "no-proof" };
}

/**
 * The shape a request asks for: the arguments the service always reports back (the fields'
 * declaration), but the name, which the candidates are found by; one left out at its default.
 */
const SHAPE = wireArguments((f) => f.reported !== undefined && f.reported !== "maybe").filter(([camel]) => camel !== "name");

/**
 * True when cluster `c` has the shape that request `r` asked for. Compares the fields the server
 * echoes back from the request; a field the server leaves out is not held against the cluster.
 */
export function matchesRequest(c: ApiCluster, r: CreateClusterRequest): boolean {
  return SHAPE.every(([, f]) => {
    const seen = (c as unknown as Record<string, unknown>)[f.wire];
    return seen === undefined || seen === ((r as unknown as Record<string, unknown>)[f.wire] ?? f.default);
  });
}

/** One line per candidate, for messages: `cls_… ("name", created 2030-…, running)`. */
export function describeCandidates(candidates: readonly ApiCluster[]): string {
  return candidates.map((c) => `${c.id} ("${c.name}", created ${c.created_at}, ${c.status})`).join(", ");
}

/**
 * What the provider says, and what `cms-gitops merge` looks for, when a create with an explicit
 * name is refused because a cluster of that name and shape exists that the stack does not record
 * (the merge job's `CMS_EXISTING_NAME=stop`): a restore of the state may have lost its record.
 */
export const UNRECORDED_NAME = "which this stack does not record";

/** The command that records cluster `id` for the Cluster of stack `stack` that carries its name (`cms-recover --adopt`). */
export function adoptCommand(stack: string, id: string): string {
  return `node_modules/.bin/cms-recover --stack ${stack} --adopt ${id}`;
}

function createdAt(c: ApiCluster): number {
  const t = Date.parse(c.created_at);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}
