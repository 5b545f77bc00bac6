/**
 * The lookups: read clusters, nodes and kubeconfigs without managing them. One implementation,
 * two callers: the package's functions (`functions/`, run in the program) and the native plugin's
 * invokes (`hosts/native/`). Each lookup checks its arguments before any call, naming the field
 * and the rule, and every failure is an {@link OperationError} naming the lookup, never the token.
 */
import type { CmsClient } from "../client";
import type { ClientRuntime } from "../client/runtime";
import { NotFoundError } from "../client/errors";
import { type Connection, notVisible, safeMessage } from "../connection";
import { parseApiPath } from "../shared/domain/api-paths";
import { type ClusterInfo, type NodeInfo, toClusterInfo, toNodeInfo } from "../shared/domain/cluster-info";
import { codeOf } from "../shared/errors/cms-error";
import { InvalidArgumentError } from "../shared/errors/invalid-argument-error";
import { OperationError } from "../shared/errors/operation-error";
import { CLUSTER_STATUSES, type ClusterStatus } from "@pulumi-cms/contract";

/** Result of `getClusters`. */
export interface GetClustersResult {
  /** The clusters, oldest first, from every page. */
  clusters: ClusterInfo[];
}

/** Result of `getNodes`. */
export interface GetNodesResult {
  /** The cluster the nodes belong to. */
  clusterId: string;
  /** Control planes first, then workers. */
  nodes: NodeInfo[];
  /** Node count reported by the API. */
  total: number;
}

/** Result of `getKubeconfig`. */
export interface GetKubeconfigResult {
  /** The cluster the kubeconfig reaches. */
  clusterId: string;
  /** Kubeconfig YAML. Treat as a secret: it grants admin access to the cluster. */
  kubeconfig: string;
}

/** A lookup whose arguments were checked: what is left is the API call. */
export type LookupCall<T> = (client: CmsClient) => Promise<T>;

/** Throw a clear error naming the argument when a required id is missing or not a string. */
export function requireId(fn: string, field: string, value: unknown, shape: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidArgumentError(`${fn}: ${field} is required (a ${shape} id)`);
  }
  return value;
}

/** `getCluster`: one cluster by id (GET /v1/clusters/{id}); fails when it does not exist. */
export function lookupCluster(args: { id?: unknown }): LookupCall<ClusterInfo> {
  const id = requireId("getCluster", "id", args?.id, "cluster (cls_...)");
  return async (client) => toClusterInfo(await client.getCluster(id));
}

/** `getClusters`: every cluster the token can see, optionally only those in one status. */
export function lookupClusters(args: { status?: unknown } = {}): LookupCall<GetClustersResult> {
  const status = args?.status;
  if (status !== undefined && status !== null && !(CLUSTER_STATUSES as readonly unknown[]).includes(status)) {
    throw new InvalidArgumentError(`getClusters: status must be one of ${CLUSTER_STATUSES.join(", ")}, got ${JSON.stringify(status)}`);
  }
  const filter = status ? { status: status as ClusterStatus } : {};
  return async (client) => ({ clusters: (await client.listAllClusters(filter)).map(toClusterInfo) });
}

/** `getNodes`: the nodes of a cluster (GET /v1/clusters/{id}/nodes). */
export function lookupNodes(args: { clusterId?: unknown }): LookupCall<GetNodesResult> {
  const clusterId = requireId("getNodes", "clusterId", args?.clusterId, "cluster (cls_...)");
  return async (client) => {
    const list = await client.listNodes(clusterId);
    const nodes = list.items.map(toNodeInfo);
    return { clusterId, nodes, total: typeof list.total === "number" ? list.total : nodes.length };
  };
}

/** `getNode`: one node of a cluster. */
export function lookupNode(args: { clusterId?: unknown; nodeId?: unknown }): LookupCall<NodeInfo> {
  const clusterId = requireId("getNode", "clusterId", args?.clusterId, "cluster (cls_...)");
  const nodeId = requireId("getNode", "nodeId", args?.nodeId, "node (node_...)");
  return async (client) => toNodeInfo(await client.getNode(clusterId, nodeId));
}

/** `getKubeconfig`: the admin kubeconfig of a cluster. */
export function lookupKubeconfig(args: { clusterId?: unknown }): LookupCall<GetKubeconfigResult> {
  const clusterId = requireId("getKubeconfig", "clusterId", args?.clusterId, "cluster (cls_...)");
  return async (client) => ({ clusterId, kubeconfig: await client.getKubeconfig(clusterId) });
}

/**
 * Run one checked lookup `fn` over `connection`, with the clients of `runtime` (the process's), turning failures into an {@link OperationError}
 * that names the lookup, keeps the failure's `code` and never contains the token.
 */
export async function runLookup<T>(runtime: ClientRuntime, fn: string, connection: Connection, call: LookupCall<T>): Promise<T> {
  // Loaded on the first call: a program that calls no function does not load the HTTP client.
  const { createClient } = await import("../client/index.js");
  const client = createClient({ endpoint: connection.endpoint, token: connection.token, runtime });
  try {
    return await call(client);
  } catch (e) {
    // A cluster the service does not show is said as `Cluster.get` says it: once, with what to check.
    const { clusterId, nodeId } = (e instanceof NotFoundError && parseApiPath(e.path)) || {};
    const words =
      clusterId && !nodeId ? `cluster ${clusterId} ${notVisible(e, [connection.token])}` : safeMessage(e, [connection.token], "lookup");
    throw new OperationError(`${fn}: ${words}`, codeOf(e, "operation_failed"));
  }
}
