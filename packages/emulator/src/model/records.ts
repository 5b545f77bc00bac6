/**
 * The emulator's records of clusters and nodes: what is stored and persisted (store/database.ts), which
 * lifecycle.ts moves through their statuses and http/wire-view.ts renders for the API.
 */
import type {
  ApiCluster,
  ApiNode,
  ClusterFields,
  CreateClusterRequest,
  ExampleWireNames,
  FieldsWhere,
  NodeFields,
  NodeSize,
  NodeStatus,
  WireNameOf,
} from "@pulumi-cms/contract";

/**
 * The fields of a cluster object a record stores, as the contract declares them: every field on
 * the wire but the node count (the wire view counts the nodes) and those answered with their
 * declared example (`example` in the contract's fields.ts).
 */
export type StoredClusterFields = Omit<ApiCluster, "node_count" | "infra_id" | ExampleWireNames<ClusterFields>>;
/** The fields of a node object a record stores: every one but its cluster's id and those answered with their example. */
export type StoredNodeFields = Omit<ApiNode, "cluster_id" | "status" | ExampleWireNames<NodeFields>>;

/** Internal node status: the wire statuses plus `gone` (removed on the next settle). */
export type NodeState = NodeStatus | "gone";

/** A future change of one node. */
export interface NodeEvent {
  at: number;
  status: NodeState;
  node_size?: NodeSize;
  kubernetes_version?: string;
}

/** A node as stored: the node object's fields (`StoredNodeFields`), with the internal status. */
export interface NodeRecord extends StoredNodeFields {
  status: NodeState;
  /** Due events, sorted by time; absent when the node is at rest. */
  pending?: NodeEvent[];
}

/** The operation a cluster is going through. */
export interface ClusterOp {
  kind: "provision" | "scale" | "upgrade" | "delete";
  startedAt: number;
  endsAt: number;
  /** Ends in status `error` instead of `running` (failNext). */
  fail: boolean;
  /** Target of an upgrade, applied to the cluster when it ends. */
  kubernetes_version?: string;
}

/** A cluster as stored (also the persisted form): the cluster object's fields (`StoredClusterFields`), and what the emulator keeps beside them. */
export interface ClusterRecord extends StoredClusterFields {
  /** `null` when the create gave none. */
  infra_id: string | null;
  op?: ClusterOp;
  nodes: NodeRecord[];
  /** Earliest time something is due; `settle` is a no-op before it. */
  nextAt: number;
  /** Kubeconfig credential (a bearer token) and CA, changed by rotation. */
  kubeconfig: KubeconfigCredential;
  /** Picks the node addresses: 10.<subnet/256>.<subnet%256>.<host>. */
  subnet: number;
  /** Number of workers ever created, for node names. */
  workerSeq: number;
}

/**
 * What a cluster's kubeconfig carries besides its server. Without `--kubernetes` the token is
 * random (and the CA, which such a kubeconfig does not carry); with it, the CA and a service
 * account token of a real API server.
 */
export interface KubeconfigCredential {
  token: string;
  /** Random bytes (hex) standing in for a CA certificate when {@link caPem} is absent. */
  ca: string;
  /** The real API server's CA certificate(s) (`--kubernetes`). */
  caPem?: string;
  /** The service account behind {@link token} (`--kubernetes`). */
  account?: string;
  /** The context's namespace; `default` when absent. */
  namespace?: string;
}

/** The create's fields it may not leave out. */
type RequiredInCreate = {
  [K in keyof CreateClusterRequest]-?: object extends Pick<CreateClusterRequest, K> ? never : K;
}[keyof CreateClusterRequest];

/**
 * What POST /v1/clusters accepts once validated: every argument of the contract's create body, an
 * absent one at the value the service defaults it to (`phase`), else `null` (`infra_id`).
 */
export type CreateInput = {
  [K in keyof CreateClusterRequest]-?: K extends
    | RequiredInCreate
    | WireNameOf<ClusterFields, FieldsWhere<ClusterFields, { default: unknown }>>
    ? Exclude<CreateClusterRequest[K], undefined>
    : Exclude<CreateClusterRequest[K], undefined> | null;
};

/** How many times each record has changed here; outside the records, so it is never persisted. */
const revisions = new WeakMap<ClusterRecord, number>();

/**
 * Marks a cluster as changed, so that what was derived from it (its cached JSON) is made again.
 * Whatever changes a record calls it.
 */
export function touch(c: ClusterRecord): void {
  revisions.set(c, (revisions.get(c) ?? 0) + 1);
}

/** Changes with every {@link touch} of `c`. */
export function revisionOf(c: ClusterRecord): number {
  return revisions.get(c) ?? 0;
}
