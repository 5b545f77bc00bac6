/** `getKubeconfig`: the kubeconfig of a cluster. */
import * as pulumi from "@pulumi/pulumi";
import { callApi, requireId, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

/** Arguments of {@link getKubeconfig}. */
export interface GetKubeconfigArgs {
  /** Cluster id (`cls_...`). */
  clusterId: string;
  /** Explicit endpoint/token; default: stack config `cms:*`, then `CMS_ENDPOINT`/`CMS_TOKEN`. */
  connection?: FunctionConnectionArgs;
}

/** Arguments of {@link getKubeconfigOutput}. */
export interface GetKubeconfigOutputArgs {
  /** Cluster id (`cls_...`). */
  clusterId: pulumi.Input<string>;
  /** Explicit endpoint/token, as Inputs. */
  connection?: FunctionConnectionInputs;
}

/** Result of {@link getKubeconfig}. */
export interface GetKubeconfigResult {
  /** The cluster the kubeconfig reaches. */
  clusterId: string;
  /** Kubeconfig YAML. Treat as a secret: it grants admin access to the cluster. */
  kubeconfig: string;
}

/**
 * Download a cluster's kubeconfig (GET /v1/clusters/{id}/kubeconfig). The plain-promise form
 * returns the text as is; prefer {@link getKubeconfigOutput}, which marks it secret.
 */
export async function getKubeconfig(args: GetKubeconfigArgs): Promise<GetKubeconfigResult> {
  const clusterId = requireId("getKubeconfig", "clusterId", args?.clusterId, "cluster (cls_...)");
  return callApi("getKubeconfig", args.connection, async (client) => ({
    clusterId,
    kubeconfig: await client.getKubeconfig(clusterId),
  }));
}

/** {@link getKubeconfig} taking Inputs; the result is a secret Output. */
export function getKubeconfigOutput(args: GetKubeconfigOutputArgs): pulumi.Output<GetKubeconfigResult> {
  return pulumi.secret(pulumi.output(args).apply((a) => getKubeconfig(a as GetKubeconfigArgs)));
}
