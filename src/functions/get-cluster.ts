/** `getCluster`: one cluster by id. */
import * as pulumi from "@pulumi/pulumi";
import { lookupCluster } from "../provider/lookups";
import type { ClusterInfo } from "../shared/domain/cluster-info";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

/** Arguments of {@link getCluster}. */
export interface GetClusterArgs {
  /** Cluster id (`cls_...`). */
  id: string;
  /** Explicit endpoint/token; default: stack config `cms:*`, then `CMS_ENDPOINT`/`CMS_TOKEN`. */
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getClusterOutput}. */
export interface GetClusterOutputArgs {
  /** Cluster id (`cls_...`). */
  id: pulumi.Input<string>;
  /** Explicit endpoint/token, as Inputs. */
  connection?: FunctionConnectionInputs;
}

/** Fetch one cluster (GET /v1/clusters/{id}). Throws when it does not exist. */
export async function getCluster(args: GetClusterArgs): Promise<ClusterInfo> {
  return callApi("getCluster", args?.connection, () => lookupCluster(args));
}

/** {@link getCluster} taking Inputs and returning an Output. */
export function getClusterOutput(args: GetClusterOutputArgs): pulumi.Output<ClusterInfo> {
  return pulumi.output(args).apply((a) => getCluster(a as GetClusterArgs));
}
