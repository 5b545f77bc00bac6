/**
 * The wire types of the v1 API that the client's surface carries (`cms.client`): these of
 * `@pulumi-cms/contract`, which also holds the schemas and the clock the client does not expose.
 */
export {
  CLUSTER_STATUSES,
  MAX_PER_PAGE,
  NODE_SIZES,
  NODE_STATUSES,
  PHASES,
  type ApiCluster,
  type ApiClusterList,
  type ApiClusterSummary,
  type ApiNode,
  type ApiNodeList,
  type ClusterStatus,
  type CreateClusterRequest,
  type NodeRole,
  type NodeSize,
  type NodeStatus,
  type Phase,
  type UpdateClusterRequest,
} from "@pulumi-cms/contract";
