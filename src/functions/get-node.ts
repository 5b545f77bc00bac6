/** `getNode`: one node of a cluster. */
import * as pulumi from "@pulumi/pulumi";
import { lookupNode } from "../provider/lookups";
import type { NodeInfo } from "../shared/domain/cluster-info";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

/** Arguments of {@link getNode}. */
export interface GetNodeArgs {
  /** Cluster id (`cls_...`). */
  clusterId: string;
  /** Node id (`node_...`). */
  nodeId: string;
  /** Explicit endpoint/token; default: stack config `cms:*`, then `CMS_ENDPOINT`/`CMS_TOKEN`. */
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getNodeOutput}. */
export interface GetNodeOutputArgs {
  /** Cluster id (`cls_...`). */
  clusterId: pulumi.Input<string>;
  /** Node id (`node_...`). */
  nodeId: pulumi.Input<string>;
  /** Explicit endpoint/token, as Inputs. */
  connection?: FunctionConnectionInputs;
}

/** Fetch one node (GET /v1/clusters/{id}/nodes/{node_id}). */
export async function getNode(args: GetNodeArgs): Promise<NodeInfo> {
  return callApi("getNode", args?.connection, () => lookupNode(args));
}

/** {@link getNode} taking Inputs and returning an Output. */
export function getNodeOutput(args: GetNodeOutputArgs): pulumi.Output<NodeInfo> {
  return pulumi.output(args).apply((a) => getNode(a as GetNodeArgs));
}
