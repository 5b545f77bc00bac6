/**
 * A cluster and a node as a Pulumi program sees them: camelCase copies of the API objects, the
 * shape of the functions' results and of the Cluster's reported outputs, mapped by the fields'
 * declaration in `@pulumi-cms/contract` (test/shared/cluster-fields.test.ts holds these types to it). Pure.
 */
import {
  type ApiCluster,
  type ApiClusterSummary,
  type ApiNode,
  CLUSTER_FIELDS,
  type ClusterStatus,
  fromWire,
  NODE_FIELDS,
  type NodeRole,
  type NodeSize,
  type NodeStatus,
  type Phase,
} from "@pulumi-cms/contract";

/**
 * What the service reports about a cluster, in camelCase: the fields shared by the Cluster's
 * outputs and the function results (`ClusterInfo`). One list, so the two cannot drift apart.
 */
export interface ClusterAttributes {
  /** Cluster name. */
  name: string;
  /** provisioning, running, scaling, upgrading, error or deleting (as last seen). */
  status: ClusterStatus;
  /** managed, onpremise or baremetal. */
  phase: Phase;
  /** Number of control planes (1 or 3). */
  controlPlanes: number;
  /** Number of workers (actual, after a refresh). */
  workers: number;
  /** Size of every node (actual, after a refresh). */
  nodeSize: NodeSize;
  /** Total node count (absent in the abbreviated create response). */
  nodeCount?: number;
  /** Kubernetes API server URL, `https://<host>:<port>`. */
  endpoint?: string;
  /** Kubernetes version, `v<major>.<minor>.<patch>`. */
  kubernetesVersion?: string;
  /** Creation time, ISO 8601 UTC. */
  createdAt?: string;
  /** Last change, ISO 8601 UTC. */
  updatedAt?: string;
  /** Target infrastructure (from the API; in the outputs, else from the inputs). */
  infraId?: string;
}

/** A cluster as the functions return it (camelCase copy of the API object). */
export interface ClusterInfo extends ClusterAttributes {
  /** Cluster id, `cls_...`. */
  id: string;
}

/** A node as the functions return it. */
export interface NodeInfo {
  /** Node id, `node_...`. */
  id: string;
  /** Id of the parent cluster. */
  clusterId: string;
  /** Node name. */
  name: string;
  /** controlplane or worker. */
  role: NodeRole;
  /** provisioning, installing, joining, ready, not_ready, draining or deleting. */
  status: NodeStatus;
  /** Node size. */
  nodeSize: NodeSize;
  /** Internal IP address. */
  ipAddress: string;
  /** Kubernetes version of the node. */
  kubernetesVersion: string;
  /** Version of the node operating system. */
  talosVersion: string;
  /** Creation time, ISO 8601. */
  createdAt: string;
}

/** The API cluster object (full or abbreviated) as a camelCase {@link ClusterInfo}: every field on the wire of the contract's declaration. */
export function toClusterInfo(c: ApiCluster | ApiClusterSummary): ClusterInfo {
  return fromWire(CLUSTER_FIELDS, c) as unknown as ClusterInfo;
}

/** The API node object as a camelCase {@link NodeInfo}: every field of the contract's declaration. */
export function toNodeInfo(n: ApiNode): NodeInfo {
  return fromWire(NODE_FIELDS, n) as unknown as NodeInfo;
}
