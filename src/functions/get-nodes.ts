/** `getNodes`: the nodes of a cluster. */
import * as pulumi from "@pulumi/pulumi";
import { toNodeInfo, type NodeInfo } from "../shared/cluster-info";
import { callApi, requireId, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

/** Arguments of {@link getNodes}. */
export interface GetNodesArgs {
  /** Cluster id (`cls_...`). */
  clusterId: string;
  /** Explicit endpoint/token; default: stack config `cms:*`, then `CMS_ENDPOINT`/`CMS_TOKEN`. */
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getNodesOutput}. */
export interface GetNodesOutputArgs {
  /** Cluster id (`cls_...`). */
  clusterId: pulumi.Input<string>;
  /** Explicit endpoint/token, as Inputs. */
  connection?: FunctionConnectionInputs;
}

/** Result of {@link getNodes}. */
export interface GetNodesResult {
  /** The cluster the nodes belong to. */
  clusterId: string;
  /** Control planes first, then workers. */
  nodes: NodeInfo[];
  /** Node count reported by the API. */
  total: number;
}

/** List the nodes of a cluster (GET /v1/clusters/{id}/nodes). */
export async function getNodes(args: GetNodesArgs): Promise<GetNodesResult> {
  const clusterId = requireId("getNodes", "clusterId", args?.clusterId, "cluster (cls_...)");
  return callApi("getNodes", args.connection, async (client) => {
    const list = await client.listNodes(clusterId);
    const nodes = list.items.map(toNodeInfo);
    return { clusterId, nodes, total: typeof list.total === "number" ? list.total : nodes.length };
  });
}

/** {@link getNodes} taking Inputs and returning an Output. */
export function getNodesOutput(args: GetNodesOutputArgs): pulumi.Output<GetNodesResult> {
  return pulumi.output(args).apply((a) => getNodes(a as GetNodesArgs));
}
