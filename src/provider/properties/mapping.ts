/**
 * Wire objects (snake_case, `@pulumi-cms/contract`) to the core's inputs and outputs (camelCase),
 * and back, by the fields' declaration (`@pulumi-cms/contract`). The camelCase cluster itself is
 * `../../shared/domain/cluster-info`, shared with the functions. Pure.
 */
import { toClusterInfo } from "../../shared/domain/cluster-info";
import {
  type ApiCluster,
  type ApiClusterSummary,
  CLUSTER_FIELDS,
  clusterArguments,
  clusterFieldsWhere,
  type CreateClusterRequest,
  type Field,
  omitUndefinedDeep,
  type UpdateClusterRequest,
  wireNames,
} from "@pulumi-cms/contract";
import type { ClusterInputs, ClusterOutputs, UPDATABLE_PROPERTIES } from "../types";

/** The arguments on the wire, with their wire names, in the order a program writes them. */
const WIRED_INPUTS = clusterArguments((f) => f.wire !== undefined).map((k) => [k, (CLUSTER_FIELDS[k] as Field).wire as string] as const);
/** The arguments a program may leave out (`infraId`). */
const OPTIONAL_INPUTS: readonly string[] = clusterFieldsWhere((f) => f.input === "optional");
/** The arguments updated in place (PATCH), with their wire names. */
const UPDATED_IN_PLACE = wireNames(CLUSTER_FIELDS, (f) => f.onChange === "update");
/** The arguments the service may not report (`infraId`): the previous value stands when it does not. */
const MAYBE_REPORTED = clusterFieldsWhere((f) => f.reported === "maybe" && f.input !== undefined);
/** The arguments a read records (those that update in place or replace). */
const READ_INPUTS = clusterArguments((f) => f.onChange !== undefined);

/** The POST /v1/clusters body for checked inputs: every argument on the wire, an optional one only when given (not empty). */
export function toCreateRequest(inputs: ClusterInputs): CreateClusterRequest {
  const body: Record<string, unknown> = {};
  const given = inputs as unknown as Record<string, unknown>;
  for (const [camel, wire] of WIRED_INPUTS) {
    if (!OPTIONAL_INPUTS.includes(camel) || given[camel]) body[wire] = given[camel];
  }
  return body as unknown as CreateClusterRequest;
}

/**
 * The PATCH body that moves the cluster described by `olds` to `news`: only the fields that
 * differ (the API modifies the fields declared `onChange: "update"` only: `workers` and
 * `node_size`). Empty when nothing needs changing.
 */
export function toUpdateRequest(
  olds: Pick<ClusterOutputs, (typeof UPDATABLE_PROPERTIES)[number]>,
  news: Pick<ClusterInputs, (typeof UPDATABLE_PROPERTIES)[number]>,
): UpdateClusterRequest {
  const patch: Record<string, unknown> = {};
  for (const [camel, wire] of UPDATED_IN_PLACE) {
    const next = (news as Record<string, unknown>)[camel];
    if (next !== undefined && next !== (olds as Record<string, unknown>)[camel]) patch[wire] = next;
  }
  return patch as UpdateClusterRequest;
}

/** The connection, and the auto-name's mark (see `RecordedFields`), travel from inputs into outputs unchanged. */
const CARRIED = ["connection", "__autonamed"] as const;

/** The value the service does not promise to report (`infraId`): the cluster's, else the one carried over. */
function withCarried(values: Record<string, unknown>, carried: object): Record<string, unknown> {
  for (const k of MAYBE_REPORTED) values[k] = values[k] ?? ((carried as Record<string, unknown>)[k] || undefined);
  return values;
}

/**
 * The Cluster's outputs from the API object, the kubeconfig, and the properties carried over
 * from the inputs (connection, recorded fields). `infraId` comes from the API when it reports it
 * (the spec does not promise it does), else from the inputs.
 */
export function toOutputs(
  cluster: ApiCluster | ApiClusterSummary,
  carried: Partial<ClusterInputs | ClusterOutputs>,
  kubeconfig: string | undefined,
): ClusterOutputs {
  // The id is the resource's id, not an output property.
  const { id: _id, ...attributes } = toClusterInfo(cluster);
  const out: Record<string, unknown> = { ...withCarried({ ...attributes }, carried), kubeconfig };
  for (const k of CARRIED) out[k] = (carried as Record<string, unknown>)[k];
  return omitUndefinedDeep(out) as unknown as ClusterOutputs;
}

/**
 * The inputs to record after a read, so that a refresh followed by `up` corrects drift.
 *
 * `workers` and `nodeSize` take the cluster's actual values: after an out-of-band scale the
 * recorded inputs show what really runs, and the next `up` sees the program differ and PATCHes
 * it back. The immutable properties come from the API too (they cannot drift); the connection
 * and recorded fields are kept from the previous state. For an adopted cluster (`Cluster.get`,
 * import) the previous state is empty and everything comes from the API.
 */
export function toInputsAfterRead(cluster: ApiCluster, previous: Partial<ClusterOutputs>): ClusterInputs {
  const info = toClusterInfo(cluster) as unknown as Record<string, unknown>;
  const inputs = withCarried(Object.fromEntries(READ_INPUTS.map((k) => [k, info[k]])), previous);
  for (const k of CARRIED) inputs[k] = (previous as Record<string, unknown>)[k];
  return omitUndefinedDeep(inputs) as unknown as ClusterInputs;
}
