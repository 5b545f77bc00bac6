/** Kubernetes integration: a `@pulumi/kubernetes` Provider for a Cluster (optional peer). */
export { kubernetesProvider, kubernetesProviderArgs, type KubernetesProviderCluster, type KubernetesProviderOptions } from "./provider";
export { loadKubernetes, KUBERNETES_PACKAGE, type KubernetesModule } from "./load";
