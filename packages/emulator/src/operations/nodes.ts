/** The node operations of `/v1`: list and retrieve (the only node operations of the spec). */
import type { ApiNode, ApiNodeList } from "@pulumi-cms/contract";
import type { Principal } from "../http/auth";
import { nodeNotFound } from "../http/errors";
import { toApiNode } from "../http/wire-view";
import type { EmulatorState } from "../model/state";
import { findCluster } from "./clusters";

/** GET /v1/clusters/{id}/nodes: every node, control planes first; no pagination. */
export function listNodes(state: EmulatorState, p: Principal, clusterId: string): ApiNodeList {
  const c = findCluster(state, p, clusterId, "reading nodes");
  const items = c.nodes.map((n) => toApiNode(c, n));
  return { items, total: items.length };
}

/** GET /v1/clusters/{id}/nodes/{node_id}. */
export function getNode(state: EmulatorState, p: Principal, clusterId: string, nodeId: string): ApiNode {
  const c = findCluster(state, p, clusterId, "reading nodes");
  const n = c.nodes.find((x) => x.id === nodeId);
  if (!n) throw nodeNotFound(c.id, nodeId);
  return toApiNode(c, n);
}
