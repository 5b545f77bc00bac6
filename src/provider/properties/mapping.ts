/**
 * Wire objects (snake_case, `@pulumi-cms/contract`) to the core's inputs and outputs (camelCase),
 * and back. The camelCase cluster itself is `../../shared/cluster-info`, shared with the functions.
 * Pure.
 */
import { toClusterInfo } from "../../shared/cluster-info";
import {
  type ApiCluster,
  type ApiClusterSummary,
  type CreateClusterRequest,
  omitUndefinedDeep,
  type UpdateClusterRequest,
} from "@pulumi-cms/contract";
import type { ClusterInputs, ClusterOutputs } from "../types";

/** The POST /v1/clusters body for checked inputs. */
export function toCreateRequest(inputs: ClusterInputs): CreateClusterRequest {
  const body: CreateClusterRequest = {
    name: inputs.name,
    control_planes: inputs.controlPlanes,
    workers: inputs.workers,
    node_size: inputs.nodeSize,
    phase: inputs.phase,
  };
  if (inputs.infraId) body.infra_id = inputs.infraId;
  return body;
}

/**
 * The PATCH body that moves the cluster described by `olds` to `news`: only the fields that
 * differ (the API modifies `workers` and `node_size` only). Empty when nothing needs changing.
 */
export function toUpdateRequest(
  olds: Pick<ClusterOutputs, "workers" | "nodeSize">,
  news: Pick<ClusterInputs, "workers" | "nodeSize">,
): UpdateClusterRequest {
  const patch: UpdateClusterRequest = {};
  if (news.workers !== undefined && news.workers !== olds.workers) patch.workers = news.workers;
  if (news.nodeSize !== undefined && news.nodeSize !== olds.nodeSize) patch.node_size = news.nodeSize;
  return patch;
}

/** The connection, and the auto-name's mark (see `RecordedFields`), travel from inputs into outputs unchanged. */
const CARRIED = ["connection", "__autonamed"] as const;

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
  const out: Record<string, unknown> = {
    ...attributes,
    infraId: attributes.infraId ?? (carried.infraId || undefined),
    kubeconfig,
  };
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
  const info = toClusterInfo(cluster);
  const inputs: Record<string, unknown> = {
    name: info.name,
    controlPlanes: info.controlPlanes,
    workers: info.workers,
    nodeSize: info.nodeSize,
    phase: info.phase,
    infraId: info.infraId ?? (previous.infraId || undefined),
  };
  for (const k of CARRIED) inputs[k] = (previous as Record<string, unknown>)[k];
  return omitUndefinedDeep(inputs) as unknown as ClusterInputs;
}
