/** Resources of the package. */
export {
  Cluster,
  type ClusterArgs,
  type ClusterConnectionArgs,
  type ClusterGetArgs,
} from "./cluster";
