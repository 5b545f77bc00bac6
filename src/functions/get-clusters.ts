/** `getClusters`: every cluster the token can see, optionally by status. */
import * as pulumi from "@pulumi/pulumi";
import { CLUSTER_STATUSES, type ClusterStatus } from "../shared/wire-types";
import { toClusterInfo, type ClusterInfo } from "../shared/cluster-info";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";
import { InvalidArgumentError } from "../shared/invalid-argument-error";

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

/** Result of {@link getClusters}. */
export interface GetClustersResult {
  /** The clusters, oldest first, from every page. */
  clusters: ClusterInfo[];
}

/** List clusters (GET /v1/clusters), walking every page. */
export async function getClusters(args: GetClustersArgs = {}): Promise<GetClustersResult> {
  const status = args.status;
  if (status !== undefined && !(CLUSTER_STATUSES as readonly string[]).includes(status)) {
    throw new InvalidArgumentError(`getClusters: status must be one of ${CLUSTER_STATUSES.join(", ")}, got ${JSON.stringify(status)}`);
  }
  return callApi("getClusters", args.connection, async (client) => ({
    clusters: (await client.listAllClusters(status ? { status } : {})).map(toClusterInfo),
  }));
}

/** {@link getClusters} taking Inputs and returning an Output. */
export function getClustersOutput(args: GetClustersOutputArgs = {}): pulumi.Output<GetClustersResult> {
  return pulumi.output(args).apply((a) => getClusters(a as GetClustersArgs));
}
