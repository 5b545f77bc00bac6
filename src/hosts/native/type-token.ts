/**
 * The native plugin's Cluster type token, apart from the handlers so that `cms-recover`, which
 * must not load the plugin, names the same type.
 */
export const NATIVE_CLUSTER_TYPE = "cms:index:Cluster";
