/**
 * `kubernetesProvider(cluster)`: a `@pulumi/kubernetes` Provider connected to a {@link Cluster},
 * the way `@pulumi/eks` hands out `cluster.provider`.
 *
 * The types below are this package's own on purpose: `@pulumi/kubernetes` is an optional peer
 * dependency, and a declaration file that imported its types would stop TypeScript programs
 * without it from compiling (unless they set `skipLibCheck`).
 */
import * as pulumi from "@pulumi/pulumi";
import type { Cluster } from "../resources/cluster";
import { loadKubernetes } from "./load";
import { InvalidArgumentError } from "../shared/invalid-argument-error";

/** Settings of the Kubernetes provider made by {@link kubernetesProvider}. */
export interface KubernetesProviderOptions {
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
 * - The kubeconfig is the cluster's `kubeconfig` output, wrapped as a secret again so it stays
 *   secret in the provider's state whatever the caller did to the cluster's outputs. It is never
 *   read from `KUBECONFIG` or `~/.kube/config`.
 * - The Cluster keeps its kubeconfig text identical while the credentials do not change, so a
 *   `pulumi refresh` leaves this provider (and its resources) alone; with `clusterIdentifier`
 *   defaulting to the cluster id, even a rotated credential is an in-place update.
 * - The provider is a child of the cluster (`parent`) unless `opts.parent` says otherwise.
 * - `@pulumi/kubernetes` (an optional peer dependency) is loaded on the first call only.
 *
 * @param cluster the cluster to connect to (created, imported, or read with `Cluster.get`)
 * @param options provider settings; see {@link KubernetesProviderOptions} for the defaults
 * @param opts resource options of the provider
 * @returns the provider, a `k8s.Provider` (typed as `pulumi.ProviderResource`)
 * @throws Error when `@pulumi/kubernetes` is not installed
 */
export function kubernetesProvider(
  cluster: Cluster,
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

/**
 * The arguments {@link kubernetesProvider} gives `k8s.Provider`: the defaults applied, the
 * cluster's kubeconfig as a secret. Exposed for tests and for callers that build the provider
 * themselves.
 */
export function kubernetesProviderArgs(
  cluster: Pick<Cluster, "id" | "kubeconfig">,
  options: KubernetesProviderOptions = {},
): Record<string, unknown> {
  const extra = { ...options.extraArgs };
  if ("kubeconfig" in extra) {
    throw new InvalidArgumentError("kubernetesProvider: extraArgs.kubeconfig is not allowed; the kubeconfig is always the cluster's");
  }
  const args: Record<string, unknown> = {
    ...extra,
    kubeconfig: pulumi.secret(pulumi.all([cluster.id, cluster.kubeconfig]).apply(([id, text]) => requireKubeconfig(text, id))),
    clusterIdentifier: options.clusterIdentifier ?? extra.clusterIdentifier ?? cluster.id,
    enableServerSideApply: options.enableServerSideApply ?? extra.enableServerSideApply ?? true,
  };
  // Unset stays unset, so the provider's environment-variable fallbacks keep working.
  for (const key of ["namespace", "deleteUnreachable", "suppressDeprecationWarnings"] as const) {
    if (options[key] !== undefined) args[key] = options[key];
  }
  return args;
}
