/**
 * A cluster and a node as a Pulumi program sees them: camelCase copies of the API objects, the
 * shape of the functions' results and of the Cluster's reported outputs, mapped by the fields'
 * declaration in `@pulumi-cms/contract`. The types are generated from it (`src/generated/cluster-info-types.ts`,
 * `npm run gen`). Pure.
 */
import { type ApiCluster, type ApiClusterSummary, type ApiNode, CLUSTER_FIELDS, fromWire, NODE_FIELDS } from "@pulumi-cms/contract";
import type { ClusterArguments, ClusterAttributes, ClusterInfo, NodeInfo } from "../../generated/cluster-info-types";

export type { ClusterArguments, ClusterAttributes, ClusterInfo, NodeInfo };

/** The API cluster object (full or abbreviated) as a camelCase {@link ClusterInfo}: every field on the wire of the contract's declaration. */
export function toClusterInfo(c: ApiCluster | ApiClusterSummary): ClusterInfo {
  return fromWire(CLUSTER_FIELDS, c) as unknown as ClusterInfo;
}

/** The API node object as a camelCase {@link NodeInfo}: every field of the contract's declaration. */
export function toNodeInfo(n: ApiNode): NodeInfo {
  return fromWire(NODE_FIELDS, n) as unknown as NodeInfo;
}
