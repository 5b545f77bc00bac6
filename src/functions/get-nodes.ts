/** `getNodes`: the nodes of a cluster. */
import * as pulumi from "@pulumi/pulumi";
import { type GetNodesResult, lookupNodes } from "../provider/lookups";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

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

export type { GetNodesResult };

/** List the nodes of a cluster (GET /v1/clusters/{id}/nodes). */
export async function getNodes(args: GetNodesArgs): Promise<GetNodesResult> {
  return callApi("getNodes", args?.connection, () => lookupNodes(args));
}

/** {@link getNodes} taking Inputs and returning an Output. */
export function getNodesOutput(args: GetNodesOutputArgs): pulumi.Output<GetNodesResult> {
  return pulumi.output(args).apply((a) => getNodes(a as GetNodesArgs));
}
