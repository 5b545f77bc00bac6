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
export { kubernetesProvider, kubernetesProviderArgs, type KubernetesProviderCluster, type KubernetesProviderOptions } from "./kubernetes"; // @pulumi/kubernetes loaded on first call
export { CmsError } from "./shared/errors/cms-error";
export type { ClusterInfo, NodeInfo } from "./shared/domain/cluster-info";
export type { ClusterStatus, NodeSize, NodeStatus, Phase, NodeRole } from "@pulumi-cms/contract";
/**
 * The HTTP client of the service's v1 API: `CmsClient`, `createClient`, its option types, its
 * errors and their predicates.
 */
export let client: typeof import("./client/public");

// Loaded on first use: a program declaring clusters does not need the HTTP client (it and its
// dependencies would add about 80 modules to every program run). The getter has the shape
// Node's CommonJS export scanner recognizes (`get: function () { return a.b; }`), so an
// ES-module `import * as cms` sees `client` too (and, reading it, loads it at import).
const onFirstUse = {
  get client() {
    return require("./client/public");
  },
};
Object.defineProperty(exports, "client", {
  enumerable: true,
  // biome-ignore lint/complexity/useArrowFunction: the scanner recognizes only this form
  get: function () {
    return onFirstUse.client;
  },
});
