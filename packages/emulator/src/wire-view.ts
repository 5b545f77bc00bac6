/**
 * The wire view of the records: the cluster, summary and node objects the API answers with.
 */
import type { ApiCluster, ApiClusterSummary, ApiNode, NodeStatus } from "@pulumi-cms/contract";
import { type ClusterRecord, type NodeRecord, revisionOf } from "./records";

/**
 * Serialized full-object JSON of each cluster, reused by list pages until the cluster changes
 * ({@link touch} of records.ts). A WeakMap keeps it out of the persisted records.
 */
const jsonCache = new WeakMap<ClusterRecord, { revision: number; text: string }>();

/** The full cluster object as JSON text (cached until the cluster changes). */
export function clusterJson(c: ClusterRecord): string {
  const revision = revisionOf(c);
  let cached = jsonCache.get(c);
  if (cached === undefined || cached.revision !== revision) {
    cached = { revision, text: JSON.stringify(toApiCluster(c)) };
    jsonCache.set(c, cached);
  }
  return cached.text;
}

/** The full cluster object (GET, list items, PATCH response). */
export function toApiCluster(c: ClusterRecord): ApiCluster {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    phase: c.phase,
    control_planes: c.control_planes,
    workers: c.workers,
    node_size: c.node_size,
    node_count: c.nodes.length,
    endpoint: c.endpoint,
    kubernetes_version: c.kubernetes_version,
    created_at: c.created_at,
    updated_at: c.updated_at,
    infra_id: c.infra_id,
  };
}

/** The abbreviated cluster object returned by create. */
export function toSummary(c: ClusterRecord): ApiClusterSummary {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    phase: c.phase,
    control_planes: c.control_planes,
    workers: c.workers,
    node_size: c.node_size,
    created_at: c.created_at,
  };
}

/** The node object. */
export function toApiNode(c: ClusterRecord, n: NodeRecord): ApiNode {
  return {
    id: n.id,
    cluster_id: c.id,
    name: n.name,
    role: n.role,
    status: n.status as NodeStatus,
    node_size: n.node_size,
    ip_address: n.ip_address,
    kubernetes_version: n.kubernetes_version,
    talos_version: n.talos_version,
    created_at: n.created_at,
  };
}
