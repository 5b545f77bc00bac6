/** Resources of the package. */
export {
  Cluster,
  CLUSTER_MODULE,
  CLUSTER_TYPE,
  CLUSTER_TYPE_NAME,
  type ClusterArgs,
  type ClusterConnectionArgs,
  type ClusterGetArgs,
} from "./cluster";
