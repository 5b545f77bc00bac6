/** `getClusters`: every cluster the token can see, optionally by status. */
import * as pulumi from "@pulumi/pulumi";
import { type GetClustersResult, lookupClusters } from "../provider/lookups";
import type { ClusterStatus } from "@pulumi-cms/contract";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

export type { GetClustersResult };

/** Arguments of {@link getClusters}. */
export interface GetClustersArgs {
  /** Keep only clusters with this status. */
  status?: ClusterStatus;
  /** Explicit endpoint/token; default: stack config `cms:*`, then `CMS_ENDPOINT`/`CMS_TOKEN`. */
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getClustersOutput}. */
export interface GetClustersOutputArgs {
  /** Keep only clusters with this status. */
  status?: pulumi.Input<ClusterStatus>;
  /** Explicit endpoint/token, as Inputs. */
  connection?: FunctionConnectionInputs;
}

/** List clusters (GET /v1/clusters), walking every page. */
export async function getClusters(args: GetClustersArgs = {}): Promise<GetClustersResult> {
  return callApi("getClusters", args?.connection, () => lookupClusters(args));
}

/** {@link getClusters} taking Inputs and returning an Output. */
export function getClustersOutput(args: GetClustersOutputArgs = {}): pulumi.Output<GetClustersResult> {
  return pulumi.output(args).apply((a) => getClusters(a as GetClustersArgs));
}
