/**
 * The service's `/v1` paths read back into what they name: the route pattern (as the emulator
 * registers it and counts requests) and the cluster and node ids. Used for messages and for
 * counting requests by route.
 */

/** What a `/v1` path names. */
export interface ApiPath {
  /** The route pattern, e.g. `/v1/clusters/:cluster_id/nodes/:node_id`. */
  route: string;
  /** The cluster id, decoded. */
  clusterId?: string;
  /** What under the cluster: its kubeconfig or its nodes. */
  sub?: "kubeconfig" | "nodes";
  /** The node id, decoded. */
  nodeId?: string;
}

const API_PATH = /^\/v1\/clusters(?:\/([^/]+)(?:\/(kubeconfig|nodes)(?:\/([^/]+))?)?)?\/?$/;

/** The route and ids of a `/v1/clusters...` path (a query is ignored); `undefined` for any other. */
export function parseApiPath(path: string): ApiPath | undefined {
  const m = API_PATH.exec(path.split("?")[0]);
  if (!m) return undefined;
  const [, cluster, sub, node] = m;
  const out: ApiPath = { route: "/v1/clusters" };
  if (cluster) {
    out.clusterId = safeDecode(cluster);
    out.route += "/:cluster_id";
  }
  if (sub) {
    out.sub = sub as "kubeconfig" | "nodes";
    out.route += `/${sub}`;
  }
  if (node) {
    out.nodeId = safeDecode(node);
    out.route += "/:node_id";
  }
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
