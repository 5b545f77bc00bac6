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

/** Type part of the auto-name seed's type token (`autoname-seed.ts`). */
export const SEED_TYPE_NAME = "AutoNameSeed";
/** The seed's full type token. */
export const SEED_TYPE = `pulumi-nodejs:dynamic/${CLUSTER_MODULE}:${SEED_TYPE_NAME}`;
/** The seed's resource name: one per stack. */
export const SEED_RESOURCE_NAME = "cms-autoname-seed";
