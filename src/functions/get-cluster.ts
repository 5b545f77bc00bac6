/** `getCluster`: one cluster by id. */
import * as pulumi from "@pulumi/pulumi";
import { toClusterInfo, type ClusterInfo } from "../provider/mapping";
import { callApi, requireId, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

/** Arguments of {@link getCluster}. */
export interface GetClusterArgs {
  /** Cluster id (`cls_...`). */
  id: string;
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getClusterOutput}. */
export interface GetClusterOutputArgs {
  id: pulumi.Input<string>;
  connection?: FunctionConnectionInputs;
}

/** Fetch one cluster (GET /v1/clusters/{id}). Throws when it does not exist. */
export async function getCluster(args: GetClusterArgs): Promise<ClusterInfo> {
  const id = requireId("getCluster", "id", args?.id, "cluster (cls_...)");
  return callApi("getCluster", args.connection, async (client) => toClusterInfo(await client.getCluster(id)));
}

/** {@link getCluster} taking Inputs and returning an Output. */
export function getClusterOutput(args: GetClusterOutputArgs): pulumi.Output<ClusterInfo> {
  return pulumi.output(args).apply((a) => getCluster(a as GetClusterArgs));
}
