/**
 * pulumi-cms: Pulumi resources and functions for the Cluster Management Service.
 *
 * ```ts
 * import * as cms from "pulumi-cms";
 * const cluster = new cms.Cluster("prod", { controlPlanes: 3, workers: 3, nodeSize: "large" });
 * export const kubeconfig = cluster.kubeconfig;
 * ```
 */
export * from "./resources";
export * from "./functions";
export { kubernetesProvider, kubernetesProviderArgs, type KubernetesProviderOptions } from "./kubernetes"; // @pulumi/kubernetes loaded on first call
export type { ClusterInfo, NodeInfo } from "./shared/cluster-info";
export type { ClusterStatus, NodeSize, NodeStatus, Phase, NodeRole } from "./shared/wire-types";
/**
 * The provider's building blocks (check, diff, schedule, durations...), for tools and tests.
 * Not a stable API: names may change in any release.
 *
 * @internal
 */
export * as provider from "./provider";
/** The HTTP client of the service's v1 API. */
export * as client from "./client";
