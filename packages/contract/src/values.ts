/**
 * The values the Cluster Management Service v1 API documents for a cluster's and a node's statuses,
 * a cluster's phase, a node's size and role: the value types of the fields declared in fields.ts.
 */

/** Cluster status values the spec lists. */
export type ClusterStatus = "provisioning" | "running" | "scaling" | "upgrading" | "error" | "deleting";
/** Node status values the spec lists. */
export type NodeStatus = "provisioning" | "installing" | "joining" | "ready" | "not_ready" | "draining" | "deleting";
/** Where a cluster runs: the service's own infrastructure, on premises or on bare metal. */
export type Phase = "managed" | "onpremise" | "baremetal";
/** Size of every node of a cluster. */
export type NodeSize = "small" | "medium" | "large" | "xlarge";
/** What a node does in its cluster. */
export type NodeRole = "controlplane" | "worker";

/** Every {@link ClusterStatus}, in lifecycle order. */
export const CLUSTER_STATUSES: readonly ClusterStatus[] = ["provisioning", "running", "scaling", "upgrading", "error", "deleting"];
/** Every {@link NodeStatus}, in lifecycle order. */
export const NODE_STATUSES: readonly NodeStatus[] = ["provisioning", "installing", "joining", "ready", "not_ready", "draining", "deleting"];
/** Every {@link Phase}. */
export const PHASES: readonly Phase[] = ["managed", "onpremise", "baremetal"];
/** Every {@link NodeRole}, control planes first. */
export const NODE_ROLES: readonly NodeRole[] = ["controlplane", "worker"];
/** Every {@link NodeSize}, smallest first. */
export const NODE_SIZES: readonly NodeSize[] = ["small", "medium", "large", "xlarge"];
