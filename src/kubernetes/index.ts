/** Kubernetes integration: a `@pulumi/kubernetes` Provider for a Cluster (optional peer). */
export { kubernetesProvider, kubernetesProviderArgs, type KubernetesProviderOptions } from "./provider";
export { loadKubernetes, KUBERNETES_PACKAGE, type KubernetesModule } from "./load";
