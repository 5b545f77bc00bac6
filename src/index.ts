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
export let provider: typeof import("./provider");
/** The HTTP client of the service's v1 API. */
export let client: typeof import("./client");

// Loaded on first use: a program declaring clusters needs neither (the HTTP client, its
// dependencies and the provider's own would add about 150 modules to every program run). The
// `exports.<name> = void 0` that the declarations above compile to is what lets Node find the
// names for ES-module importers; those read them, and so load them, at import.
lazyExport("provider", () => require("./provider"));
lazyExport("client", () => require("./client"));

function lazyExport(name: string, load: () => unknown): void {
  Object.defineProperty(exports, name, { enumerable: true, configurable: true, get: load });
}
