/**
 * `pulumi-cms/native`: the SDK generated from sdk/schema.json (sdk/nodejs, compiled to
 * dist/native/sdk), with its functions' failures marked {@link shownAsMessage}. The engine's
 * message names the function and carries the plugin's (the cause and what to do); left uncaught in
 * a program, it is that one message, not an "unhandled exception" with Pulumi's and gRPC's frames.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as sdk from "./sdk";
import { shownAsMessage } from "../shared/errors/shown-as-message";

export * from "./sdk";

/** The function `fn()` gives, its rejection marked. It is looked up at the first call, when the SDK's index loads its module. */
function promised<A extends unknown[], R>(fn: () => (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) =>
    fn()(...args).catch((e: unknown) => {
      throw shownAsMessage(e);
    });
}

/**
 * The function `fn()` gives, the failure of its Output marked. An Output offers no public way to
 * observe its failure; `promise()` is the one `@pulumi/pulumi` itself reads an Output's value by, in
 * every copy of the SDK. The same error object reaches the program runner through the Output's
 * other chains, after this handler (a microtask) has marked it.
 */
function output<A extends unknown[], R>(fn: () => (...args: A) => pulumi.Output<R>): (...args: A) => pulumi.Output<R> {
  return (...args) => {
    const out = fn()(...args);
    (out as unknown as { promise?: () => Promise<unknown> }).promise?.().catch(shownAsMessage);
    return out;
  };
}

export const getCluster = promised(() => sdk.getCluster);
export const getClusterOutput = output(() => sdk.getClusterOutput);
export const getClusters = promised(() => sdk.getClusters);
export const getClustersOutput = output(() => sdk.getClustersOutput);
export const getKubeconfig = promised(() => sdk.getKubeconfig);
export const getKubeconfigOutput = output(() => sdk.getKubeconfigOutput);
export const getNode = promised(() => sdk.getNode);
export const getNodeOutput = output(() => sdk.getNodeOutput);
export const getNodes = promised(() => sdk.getNodes);
export const getNodesOutput = output(() => sdk.getNodesOutput);
