/** Functions (data sources): read clusters, nodes and kubeconfigs without managing them. */
export { getCluster, getClusterOutput, type GetClusterArgs, type GetClusterOutputArgs } from "./get-cluster";
export {
  getClusters,
  getClustersOutput,
  type GetClustersArgs,
  type GetClustersOutputArgs,
  type GetClustersResult,
} from "./get-clusters";
export { getNodes, getNodesOutput, type GetNodesArgs, type GetNodesOutputArgs, type GetNodesResult } from "./get-nodes";
export { getNode, getNodeOutput, type GetNodeArgs, type GetNodeOutputArgs } from "./get-node";
export {
  getKubeconfig,
  getKubeconfigOutput,
  type GetKubeconfigArgs,
  type GetKubeconfigOutputArgs,
  type GetKubeconfigResult,
} from "./get-kubeconfig";
export { connectionFromStackConfig, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";
