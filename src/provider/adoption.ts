/**
 * Taking an existing cluster instead of creating one, in the two cases where that is right:
 *
 * - the `import` resource option (`__import`): the user names the cluster; the program must
 *   describe it ({@link adoptImported});
 * - a cluster left by an interrupted run of this very resource ({@link findLeftover}): a
 *   `pulumi up` killed after its POST leaves a cluster the state does not record. Its name was
 *   derived from the resource's URN (see `naming.ts`), so the next run computes the same name and
 *   finds it, instead of creating a duplicate and leaving the first one billed and unowned.
 *
 * What counts as evidence that a cluster is this resource's: only a derived auto-name. Names are
 * not unique in the API, and a name the user chose can be carried by anybody's cluster, so a
 * cluster is never taken on the strength of an explicit name, whatever its shape. Nor is one in
 * `deleting` (it is on its way out), nor one with the name of the cluster the state already
 * holds for this resource (`pulumi up --replace` keeps the name and must make a new cluster).
 */
import type { CmsClient } from "../client";
import type { ApiCluster } from "../shared/wire-types";
import { isNotFound } from "../client/errors";
import { safeMessage } from "../connection";
import type { ClusterInputs } from "./types";

/**
 * What `check` saw of resources that are already in the state, by URN, in this process.
 *
 * The engine re-runs `check` without the old inputs when it decides to replace a resource, and
 * it does not run it again for `pulumi up --replace`. Remembering the first call tells the
 * re-check that it is a replacement (so it picks the next auto-name generation and drops a stale
 * `import` id), and tells `create` which name the cluster in the state has.
 */
export class StateMemory {
  private readonly byUrn = new Map<string, { name: unknown }>();

  /** Record that `urn` is in the state with these inputs. */
  remember(urn: string, olds: Record<string, unknown>): void {
    this.byUrn.set(urn, { name: olds.name });
  }

  /** The inputs recorded for `urn`, when check saw it in the state. */
  previous(urn: string | undefined): { name: unknown } | undefined {
    return urn === undefined ? undefined : this.byUrn.get(urn);
  }
}

/** Listings of every cluster in flight, by client identity, shared by concurrent creates. */
const listings = new Map<string, Promise<ApiCluster[]>>();

/**
 * Every cluster visible to the client. Creates that start while a listing is in flight share it:
 * a stack creating fifty clusters lists once, not fifty times. (A cluster left by an earlier run
 * existed before any of these listings started, so a shared one cannot miss it.)
 */
function listShared(client: CmsClient): Promise<ApiCluster[]> {
  const key = client.identity;
  let listing = listings.get(key);
  if (!listing) {
    listing = client.listAllClusters().finally(() => listings.delete(key));
    listings.set(key, listing);
  }
  return listing;
}

/**
 * The cluster an interrupted earlier run of this resource created, or undefined when there is
 * none (then the caller creates one). Only for derived auto-names; see the module comment.
 *
 * @param inState name of the cluster the state holds for this resource, if any
 * @throws when several clusters carry the name (which one is ours cannot be told)
 */
export async function findLeftover(
  client: CmsClient,
  inputs: ClusterInputs,
  inState: unknown,
  secrets: string[],
): Promise<ApiCluster | undefined> {
  if (inputs.__autonamed !== true || inputs.name === inState) return undefined;
  let all: ApiCluster[];
  try {
    all = await listShared(client);
  } catch (e) {
    throw new Error(
      `creating cluster "${inputs.name}" failed: listing clusters (to find one left by an interrupted run) failed: ${safeMessage(e, secrets)}`,
    );
  }
  const same = all.filter((c) => c.name === inputs.name && c.status !== "deleting");
  if (same.length <= 1) return same[0];
  const ids = same.map((c) => `${c.id} (${c.status}, created ${c.created_at})`).join(", ");
  throw new Error(
    `creating cluster "${inputs.name}" failed: ${same.length} clusters already carry this stack's name for it: ${ids}. ` +
      "Interrupted runs left them; keep one with the `import` resource option and delete the others (or delete them all), then run `pulumi up` again.",
  );
}

/** For the `import` option: fetch the cluster and insist that the program describes it. */
export async function adoptImported(client: CmsClient, inputs: ClusterInputs, secrets: string[]): Promise<ApiCluster> {
  const id = String(inputs.__import);
  let cluster: ApiCluster;
  try {
    cluster = await client.getCluster(id);
  } catch (e) {
    if (isNotFound(e)) throw new Error(`cannot import cluster ${id}: it does not exist`);
    throw new Error(`cannot import cluster ${id}: ${safeMessage(e, secrets)}`);
  }
  if (cluster.status === "deleting") throw new Error(`cannot import cluster ${id}: it is being deleted`);
  const mismatches = importMismatches(cluster, inputs);
  if (mismatches.length > 0) {
    throw new Error(
      `cannot import cluster ${id}: the program's inputs do not match it (${mismatches.join("; ")}). ` +
        "Change the program to describe the cluster as it is, import it, then change it.",
    );
  }
  return cluster;
}

/**
 * Differences between an existing cluster and the program's inputs, one "property: program X,
 * cluster Y" entry each. `infraId` is compared only when the API reports it.
 */
export function importMismatches(cluster: ApiCluster, inputs: Partial<ClusterInputs>): string[] {
  const pairs: Array<[string, unknown, unknown]> = [
    ["name", inputs.name, cluster.name],
    ["controlPlanes", inputs.controlPlanes, cluster.control_planes],
    ["workers", inputs.workers, cluster.workers],
    ["nodeSize", inputs.nodeSize, cluster.node_size],
    ["phase", inputs.phase ?? "managed", cluster.phase],
  ];
  if (cluster.infra_id !== undefined) pairs.push(["infraId", inputs.infraId ?? null, cluster.infra_id ?? null]);
  return pairs
    .filter(([, program, actual]) => program !== actual)
    .map(([prop, program, actual]) => `${prop}: program ${JSON.stringify(program)}, cluster ${JSON.stringify(actual)}`);
}
