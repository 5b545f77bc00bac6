/**
 * `kubernetesProvider(cluster)`: a `@pulumi/kubernetes` Provider connected to a {@link Cluster},
 * the way `@pulumi/eks` hands out `cluster.provider`.
 *
 * The types below are this package's own on purpose: `@pulumi/kubernetes` is an optional peer
 * dependency, and a declaration file that imported its types would stop TypeScript programs
 * without it from compiling (unless they set `skipLibCheck`).
 */
import * as pulumi from "@pulumi/pulumi";
import { normalizeEndpoint } from "../client/endpoint";
import { ENV_ENDPOINT } from "../connection";
import { connectionFromStackConfig } from "../connection/stack-config";
import { type Cluster, explicitConnectionOf } from "../resources/cluster";
import { execKubeconfig } from "../provider/exec-credential";
import { loadKubernetes } from "./load";
import { InvalidArgumentError } from "../shared/errors/invalid-argument-error";

/**
 * A cluster of either face: the dynamic {@link Cluster} of `pulumi-cms`, or `cms.Cluster` of
 * `pulumi-cms/native`. A native cluster's exec credential connects as its provider's stack
 * configuration (`cms:endpoint`, `cms:token`) or the environment (`CMS_ENDPOINT`, `CMS_TOKEN`) says.
 */
export type KubernetesProviderCluster = pulumi.CustomResource & { readonly kubeconfig: pulumi.Output<string | undefined> };

/** Settings of the Kubernetes provider made by {@link kubernetesProvider}. */
export interface KubernetesProviderOptions {
  /**
   * How the Kubernetes provider authenticates. Default `"exec"`: a kubeconfig without the
   * cluster's static credential, whose `exec` plugin (`cms-kubeconfig exec-credential`, run with
   * `node` from the project's directory) fetches the current one at each use, so a credential
   * rotated in the console needs nothing done. `"static"`: the cluster's kubeconfig as the
   * service sends it, for a runner without `node` on PATH or without `pulumi-cms` installed
   * in the project's directory; a rotation then needs `pulumi refresh --run-program` and `pulumi up`.
   */
  credential?: "exec" | "static";
  /** Resource name of the provider. Default: the cluster's resource name plus `-k8s`. */
  name?: string;
  /** Namespace for resources that do not set one. Default: the kubeconfig's (`default`). */
  namespace?: pulumi.Input<string>;
  /**
   * Server-side apply. Default `true`, set explicitly (it is also `@pulumi/kubernetes` v4's own
   * default) so that a future change of that default, or a stray
   * `PULUMI_K8S_ENABLE_SERVER_SIDE_APPLY` in someone's shell, cannot silently switch every
   * resource of the stack to client-side apply and its different diff and ownership rules.
   */
  enableServerSideApply?: pulumi.Input<boolean>;
  /**
   * Drop this provider's resources from the state when the cluster cannot be reached during a
   * refresh or delete. Default: not set, so `@pulumi/kubernetes` reads the
   * `PULUMI_K8S_DELETE_UNREACHABLE` environment variable, else `false`. Deliberately not on by
   * default: a short outage of the cluster's API during `pulumi refresh` would otherwise make
   * Pulumi forget every workload. To clean up after the cluster was deleted outside Pulumi, run
   * `PULUMI_K8S_DELETE_UNREACHABLE=true pulumi destroy` (or `refresh`) once, without a code change.
   */
  deleteUnreachable?: pulumi.Input<boolean>;
  /**
   * What decides whether the provider is replaced (and with it everything deployed through it).
   * Default: the cluster id, so a rotated credential updates the provider in place while a new
   * cluster (a replaced `Cluster`, new id) replaces the provider and redeploys onto the new
   * cluster. Without it `@pulumi/kubernetes` guesses from the kubeconfig text.
   */
  clusterIdentifier?: pulumi.Input<string>;
  /** Hide apiVersion deprecation warnings. Default: not set (`@pulumi/kubernetes` decides). */
  suppressDeprecationWarnings?: pulumi.Input<boolean>;
  /**
   * Any other argument of `@pulumi/kubernetes`'s `ProviderArgs` (e.g. `kubeClientSettings`),
   * passed as given. The named options above win over the same keys here. `kubeconfig` is
   * refused: it is always the cluster's.
   */
  extraArgs?: Record<string, unknown>;
}

/**
 * A `@pulumi/kubernetes` Provider for `cluster`: deploy Kubernetes resources to it with
 * `{ provider }`.
 *
 * ```ts
 * const cluster = new cms.Cluster("prod", { controlPlanes: 3, workers: 3, nodeSize: "large" });
 * const provider = cms.kubernetesProvider(cluster);
 * new k8s.core.v1.Namespace("apps", {}, { provider });
 * ```
 *
 * - The kubeconfig is the cluster's (server, CA, context) with an `exec` credential plugin in
 *   place of its static credential (`options.credential`), wrapped as a secret so it stays
 *   secret in the provider's state whatever the caller did to the cluster's outputs. It is never
 *   read from `KUBECONFIG` or `~/.kube/config`.
 * - A rotated credential changes nothing of it: the plugin fetches the current one. With
 *   `clusterIdentifier` defaulting to the cluster id, any change of it is an in-place update.
 * - The provider is a child of the cluster (`parent`) unless `opts.parent` says otherwise.
 * - `@pulumi/kubernetes` (an optional peer dependency) is loaded on the first call only.
 *
 * @param cluster the cluster to connect to (created, imported, or read with `Cluster.get`), of
 *   either face ({@link KubernetesProviderCluster})
 * @param options provider settings; see {@link KubernetesProviderOptions} for the defaults
 * @param opts resource options of the provider
 * @returns the provider, a `k8s.Provider` (typed as `pulumi.ProviderResource`)
 * @throws Error when `@pulumi/kubernetes` is not installed
 */
export function kubernetesProvider(
  cluster: KubernetesProviderCluster,
  options: KubernetesProviderOptions = {},
  opts: pulumi.CustomResourceOptions = {},
): pulumi.ProviderResource {
  const k8s = loadKubernetes();
  const name = options.name ?? `${pulumi.resourceName(cluster)}-k8s`;
  return new k8s.Provider(name, kubernetesProviderArgs(cluster, options), { parent: cluster, ...opts });
}

/**
 * The kubeconfig text, or an error: an undefined or empty kubeconfig would make
 * `@pulumi/kubernetes` fall back to `KUBECONFIG` or `~/.kube/config`, and deploy to whatever
 * cluster that names. Applied to the cluster's kubeconfig output by {@link kubernetesProviderArgs}.
 * @internal
 */
export function requireKubeconfig(text: unknown, id: string): string {
  if (typeof text === "string" && text.trim() !== "") return text;
  throw new InvalidArgumentError(
    `kubernetesProvider: cluster ${id} has no kubeconfig, so no provider is made for it ` +
      "(@pulumi/kubernetes would fall back to the ambient ~/.kube/config). Check that the cluster exists and is running.",
  );
}

const present = (v: string | undefined): v is string => typeof v === "string" && v.trim() !== "";

/**
 * The kubeconfig of {@link kubernetesProviderArgs} with the exec plugin: the endpoint the Cluster
 * uses (its explicit `connection`, else `cms:endpoint`, else `CMS_ENDPOINT`, as the provider
 * resolves it) as an argument; the token only when it comes from the explicit connection or the
 * stack configuration, which the state holds already (encrypted), so that `pulumi refresh`, which
 * does not run the program, finds it. A token from `CMS_TOKEN` stays out of the state: the plugin
 * reads it from the environment the Pulumi CLI runs with.
 * @internal
 */
export function execKubeconfigFor(text: string, clusterId: string, explicit: { endpoint?: string; token?: string }): string {
  const config = connectionFromStackConfig();
  const endpoint = [explicit.endpoint, config.endpoint, process.env[ENV_ENDPOINT]].find(present);
  const recordedToken = [explicit.token, config.token].find(present)?.trim();
  return execKubeconfig(text, { clusterId, endpoint: endpoint && normalizeEndpoint(endpoint), recordedToken });
}

/**
 * The arguments {@link kubernetesProvider} gives `k8s.Provider`: the defaults applied, the
 * cluster's kubeconfig (with the exec credential plugin unless `options.credential` is
 * `"static"`) as a secret. Exposed for tests and for callers that build the provider themselves.
 */
export function kubernetesProviderArgs(
  cluster: Pick<KubernetesProviderCluster, "id" | "kubeconfig">,
  options: KubernetesProviderOptions = {},
): Record<string, unknown> {
  const extra = { ...options.extraArgs };
  if ("kubeconfig" in extra) {
    throw new InvalidArgumentError("kubernetesProvider: extraArgs.kubeconfig is not allowed; the kubeconfig is always the cluster's");
  }
  const credential = options.credential ?? "exec";
  if (credential !== "exec" && credential !== "static") {
    throw new InvalidArgumentError(`kubernetesProvider: options.credential must be "exec" or "static", got ${JSON.stringify(credential)}`);
  }
  const explicit = explicitConnectionOf(cluster);
  const kubeconfig = pulumi
    .all([cluster.id, cluster.kubeconfig, explicit?.endpoint, explicit?.token])
    .apply(([id, text, endpoint, token]) => {
      const checked = requireKubeconfig(text, id);
      return credential === "static" ? checked : execKubeconfigFor(checked, id, { endpoint, token });
    });
  const args: Record<string, unknown> = {
    ...extra,
    kubeconfig: pulumi.secret(kubeconfig),
    clusterIdentifier: options.clusterIdentifier ?? extra.clusterIdentifier ?? cluster.id,
    enableServerSideApply: options.enableServerSideApply ?? extra.enableServerSideApply ?? true,
  };
  // Unset stays unset, so the provider's environment-variable fallbacks keep working.
  for (const key of ["namespace", "deleteUnreachable", "suppressDeprecationWarnings"] as const) {
    if (options[key] !== undefined) args[key] = options[key];
  }
  return args;
}
