/** `getKubeconfig`: the kubeconfig of a cluster. */
import * as pulumi from "@pulumi/pulumi";
import { type GetKubeconfigResult, lookupKubeconfig } from "../provider/lookups";
import { callApi, type FunctionConnectionArgs, type FunctionConnectionInputs } from "./connection";

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

export type { GetKubeconfigResult };

/**
 * Download a cluster's kubeconfig (GET /v1/clusters/{id}/kubeconfig). The plain-promise form
 * returns the text as is; prefer {@link getKubeconfigOutput}, which marks it secret.
 */
export async function getKubeconfig(args: GetKubeconfigArgs): Promise<GetKubeconfigResult> {
  return callApi("getKubeconfig", args?.connection, () => lookupKubeconfig(args));
}

/** {@link getKubeconfig} taking Inputs; the result is a secret Output. */
export function getKubeconfigOutput(args: GetKubeconfigOutputArgs): pulumi.Output<GetKubeconfigResult> {
  return pulumi.secret(pulumi.output(args).apply((a) => getKubeconfig(a as GetKubeconfigArgs)));
}
