/**
 * `pulumi-cms/native`: the SDK generated from sdk/schema.json (sdk/nodejs, compiled to
 * dist/native/sdk), with its functions' failures marked {@link shownAsMessage}. The engine's
 * message names the function and carries the plugin's (the cause and what to do); left uncaught in
 * a program, it is that one message, not an "unhandled exception" with Pulumi's and gRPC's frames.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as sdk from "#native-sdk";
import { shownAsMessage } from "../shared/errors/shown-as-message";

export * from "#native-sdk";

type Sdk = typeof sdk;

/** `sdk[name]`, its rejection marked. The generated module is loaded at the first call, as the SDK's index does. */
function promised<K extends "getCluster" | "getClusters" | "getKubeconfig" | "getNode" | "getNodes">(name: K): Sdk[K] {
  const call = (...args: unknown[]) =>
    (sdk[name] as (...a: unknown[]) => Promise<unknown>)(...args).catch((e: unknown) => {
      throw shownAsMessage(e);
    });
  return call as Sdk[K];
}

/**
 * `sdk[name]`, the failure of its Output marked. An Output offers no public way to observe its
 * failure; `promise()` is the one `@pulumi/pulumi` itself reads an Output's value by, in every copy
 * of the SDK. The same error object reaches the program runner through the Output's other chains,
 * after this handler (a microtask) has marked it.
 */
function output<K extends "getClusterOutput" | "getClustersOutput" | "getKubeconfigOutput" | "getNodeOutput" | "getNodesOutput">(
  name: K,
): Sdk[K] {
  const call = (...args: unknown[]) => {
    const out = (sdk[name] as (...a: unknown[]) => pulumi.Output<unknown>)(...args);
    (out as unknown as { promise?: () => Promise<unknown> }).promise?.().catch(shownAsMessage);
    return out;
  };
  return call as Sdk[K];
}

export const getCluster = promised("getCluster");
export const getClusterOutput = output("getClusterOutput");
export const getClusters = promised("getClusters");
export const getClustersOutput = output("getClustersOutput");
export const getKubeconfig = promised("getKubeconfig");
export const getKubeconfigOutput = output("getKubeconfigOutput");
export const getNode = promised("getNode");
export const getNodeOutput = output("getNodeOutput");
export const getNodes = promised("getNodes");
export const getNodesOutput = output("getNodesOutput");
