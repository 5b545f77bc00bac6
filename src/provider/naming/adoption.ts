/**
 * Taking an existing cluster instead of creating one, in the two cases where that is right:
 *
 * - the `import` resource option: the user names the cluster; the program must
 *   describe it ({@link adoptImported});
 * - a cluster left by an interrupted run of this very resource ({@link findLeftover}): a
 *   `pulumi up` killed after its POST leaves a cluster the state does not record. Its name was
 *   derived from the resource's URN and the stack's seed (see `naming.ts`), so the next run
 *   computes the same name and finds it, instead of creating a duplicate and leaving the first
 *   one billed and unowned. It lists every cluster to look for it, except when the stack's seed
 *   was drawn in this very process (the runtime's `drawnSeeds`, `../runtime.ts`): the seed is new in this run, so no
 *   earlier run can have used it.
 *
 * Whether a cluster is this resource's is decided by `shared/domain/ownership.ts`; this module gathers
 * the evidence ({@link nameProofOf}). Only a seeded auto-name proves it. A cluster is never taken
 * on the strength of an explicit name, whatever its shape, nor of a 0.2.0 auto-name (twin stacks
 * compute it too): where one exists, the create fails and names it. Nor is one in `deleting` (it
 * is on its way out), nor one with the name of the cluster the state already holds for this
 * resource (`pulumi up --replace` keeps the name and must make a new cluster).
 */
import { codeOf } from "../../shared/errors/cms-error";
import { OperationError } from "../errors";
import type { CmsClient } from "../../client";
import type { ApiCluster } from "@pulumi-cms/contract";
import { isNotFound, UnprovenOwnershipError } from "../../client/errors";
import { adoptCommand, describeCandidates, judgeOwnership, type NameProof, UNRECORDED_NAME } from "../../shared/domain/ownership";
import { notVisible, safeMessage } from "../../connection";
import { toCreateRequest } from "../properties/mapping";
import { listEveryCluster } from "../polling/listings";
import { isSeededAutoName } from "./auto-name";
import type { ClusterInputs } from "../types";
import type { Runtime } from "../runtime";

/**
 * What `check` saw of resources that are already in the state, by URN, in this process.
 *
 * The engine re-runs `check` without the old inputs when it decides to replace a resource, and
 * it does not run it again for `pulumi up --replace`. Remembering the first call tells the
 * re-check that it is a replacement (so it picks the next auto-name generation and drops a stale
 * `import` id), and tells `create` which name the cluster in the state has.
 */
export class StateMemory {
  /** @param byUrn where it is kept (the default provider's is in the process's runtime). */
  constructor(private readonly byUrn: () => Map<string, InStateMemory>) {}

  /** Record that `urn` is in the state with these inputs. */
  remember(urn: string, olds: Record<string, unknown>): void {
    this.byUrn().set(urn, { name: olds.name });
  }

  /** The inputs recorded for `urn`, when check saw it in the state. */
  previous(urn: string | undefined): { name: unknown } | undefined {
    return this.entry(urn);
  }

  /** Record that the cluster the state holds for `urn` was deleted in this process. */
  deleted(urn: string | undefined): void {
    const seen = this.entry(urn);
    if (seen) seen.deleted = true;
  }

  /** Record that a cluster was created for `urn` in this process. */
  created(urn: string | undefined): void {
    const seen = this.entry(urn);
    if (seen) seen.created = true;
  }

  /**
   * Whether a create of `urn` replaces a cluster that is deleted after it (the engine deletes the
   * original once the replacement is created, unless it deleted it first, in this process).
   */
  originalDeletedNext(urn: string | undefined): boolean {
    const seen = this.entry(urn);
    return seen !== undefined && seen.deleted !== true;
  }

  /**
   * Whether a delete of `urn` is the first half of a replacement, its new cluster created after it
   * (the resource is in the program, and no cluster was created for it in this process yet).
   */
  replacementCreatedNext(urn: string | undefined): boolean {
    const seen = this.entry(urn);
    return seen !== undefined && seen.created !== true;
  }

  private entry(urn: string | undefined): InStateMemory | undefined {
    return urn === undefined ? undefined : this.byUrn().get(urn);
  }
}

/** What check saw of a resource in the state (its name), and what this process did to it since. */
export interface InStateMemory {
  name: unknown;
  deleted?: boolean;
  created?: boolean;
}

/** What the name of checked inputs of the resource `urn` proves about a cluster carrying it (see `shared/domain/ownership.ts`). */
export function nameProofOf(inputs: Partial<ClusterInputs> | Record<string, unknown>, urn: unknown): NameProof {
  return inputs.__autonamed === true && isSeededAutoName(urn, inputs.name, inputs.__seed) ? "seeded" : "none";
}

/**
 * The cluster an interrupted earlier run of this resource created, or undefined when there is
 * none (then the caller creates one). Only for auto-names; see the module comment.
 *
 * @param urn the resource's URN, from which its auto-name derives
 * @param inState name of the cluster the state holds for this resource, if any
 * @throws UnprovenOwnershipError when clusters carry the name but it proves nothing (a 0.2.0
 *   auto-name), or several carry a seeded one
 */
export async function findLeftover(
  runtime: Pick<Runtime, "drawnSeeds" | "listings">,
  client: CmsClient,
  inputs: ClusterInputs,
  urn: string | undefined,
  inState: unknown,
  secrets: string[],
): Promise<ApiCluster | undefined> {
  if (inputs.__autonamed !== true || inputs.name === inState) return undefined;
  const proof = nameProofOf(inputs, urn);
  // A seed drawn in this process (this run's, new to the stack) names nothing an earlier run made.
  if (proof === "seeded" && typeof inputs.__seed === "string" && runtime.drawnSeeds.has(inputs.__seed)) return undefined;
  let all: ApiCluster[];
  try {
    // Shared with the creates that look at the same time (`../polling/listings.ts`): a stack creating fifty
    // clusters lists once. A cluster left by an earlier run existed before any of these listings
    // started, so a shared one cannot miss it.
    all = await listEveryCluster(runtime.listings, client);
  } catch (e) {
    // Said as what failed (the listing, and why), not as what it was for: a refused token or an
    // unreachable service is no sign that a run was interrupted.
    throw new OperationError(`creating cluster "${inputs.name}" failed: ${safeMessage(e, secrets)}`, codeOf(e, "operation_failed"));
  }
  const ownership = judgeOwnership(all, { name: inputs.name, proof, request: proof === "seeded" ? undefined : toCreateRequest(inputs) });
  if (ownership.verdict === "ours") return ownership.cluster;
  if (ownership.verdict === "none") return undefined;
  throw new UnprovenOwnershipError(
    inputs.name,
    ownership.candidates,
    proof === "seeded"
      ? `cannot create cluster "${inputs.name}": this stack's own auto-name for the resource is already carried by several clusters (did a copy of the stack's state run too?)`
      : `cannot create cluster "${inputs.name}": its auto-name (release 0.2.0's, derived from the resource's URN alone) is computed by any stack with the same project, stack and resource names, in any backend`,
  );
}

/**
 * With `CMS_EXISTING_NAME=stop` (what `cms-gitops merge` runs `pulumi up` with): refuse to create
 * a cluster with an explicit name while one of that name and shape exists, since the stack does
 * not record it (were it recorded, the engine would not be creating). A restore of the state may
 * have lost its record, or it is another's: the name cannot tell, so a person decides, with the
 * one command the message names. Without the setting, an explicit name is created beside any
 * other of that name, as the API allows.
 */
export async function refuseUnrecordedName(
  runtime: Pick<Runtime, "listings">,
  client: CmsClient,
  inputs: ClusterInputs,
  urn: string | undefined,
  env: Record<string, string | undefined>,
  secrets: string[],
): Promise<void> {
  if (env.CMS_EXISTING_NAME !== "stop" || inputs.__autonamed === true || inputs.name === undefined) return;
  let all: ApiCluster[];
  try {
    all = await listEveryCluster(runtime.listings, client);
  } catch (e) {
    throw new OperationError(`creating cluster "${inputs.name}" failed: ${safeMessage(e, secrets)}`, codeOf(e, "operation_failed"));
  }
  const ownership = judgeOwnership(all, { name: inputs.name, proof: "none", request: toCreateRequest(inputs) });
  if (ownership.verdict !== "unproven") return;
  // `urn:pulumi:STACK::PROJECT::…`
  const stack = urn?.split("::")[0]?.split(":")[2] || "STACK";
  const ids = ownership.candidates.map((c) => c.id);
  throw new OperationError(
    `cannot create cluster "${inputs.name}": ${describeCandidates(ownership.candidates)} already carries the name, ${UNRECORDED_NAME}. ` +
      "A restore of the stack's state may have lost its record, or it is another's (the console, another stack): an explicit name cannot tell, so nothing was created. " +
      `If it is this stack's, record it: ${adoptCommand(stack, ids[0])}${ids.length > 1 ? ` (or ${ids.slice(1).join(", ")})` : ""}, then run the job again. ` +
      "If it is not, give this Cluster another name.",
    "name_in_use",
  );
}

/** For the `import` option: fetch cluster `id` and insist that the program describes it. */
export async function adoptImported(client: CmsClient, id: string, inputs: ClusterInputs, secrets: string[]): Promise<ApiCluster> {
  let cluster: ApiCluster;
  try {
    cluster = await client.getCluster(id);
  } catch (e) {
    if (isNotFound(e)) throw new OperationError(`cannot import cluster ${id}: it ${notVisible(e, secrets)}`);
    throw new OperationError(`cannot import cluster ${id}: ${safeMessage(e, secrets)}`, codeOf(e, "operation_failed"));
  }
  if (cluster.status === "deleting") throw new OperationError(`cannot import cluster ${id}: it is being deleted`);
  const mismatches = importMismatches(cluster, inputs);
  if (mismatches.length > 0) {
    throw new OperationError(
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
