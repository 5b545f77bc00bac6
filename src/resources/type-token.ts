/**
 * The Cluster resource's type token, apart from the resource class so that code which must not
 * load `@pulumi/pulumi` (the `cms-recover` command) names the same type.
 */

/** Module part of the resource type token. */
export const CLUSTER_MODULE = "cms";
/** Type part of the resource type token. */
export const CLUSTER_TYPE_NAME = "Cluster";
/** The full type token, as it appears in URNs and `pulumi stack` output. */
export const CLUSTER_TYPE = `pulumi-nodejs:dynamic/${CLUSTER_MODULE}:${CLUSTER_TYPE_NAME}`;
