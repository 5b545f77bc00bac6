/**
 * The demo program: one cluster, and its kubeconfig as a secret stack output.
 *
 * Another stack (or this one, once the Kubernetes plugin can be installed) hands that output to
 * the Kubernetes provider:
 *
 *   const ref = new pulumi.StackReference("org/pulumi-cms-demo/demo");
 *   const k8s = new kubernetes.Provider("cms", { kubeconfig: ref.requireOutput("kubeconfig") });
 *
 * Connection: stack config `cms:endpoint` and secret `cms:token` (or CMS_ENDPOINT / CMS_TOKEN).
 */
import * as pulumi from "@pulumi/pulumi";
import * as cms from "pulumi-cms";

const config = new pulumi.Config();

const cluster = new cms.Cluster("demo", {
  controlPlanes: 1,
  workers: config.getNumber("workers") ?? 2,
  nodeSize: "small",
});

export const clusterId = cluster.id;
export const clusterName = cluster.name;
export const status = cluster.status;
export const workers = cluster.workers;
export const nodeCount = cluster.nodeCount;
export const apiServer = cluster.endpoint;
export const kubernetesVersion = cluster.kubernetesVersion;
/** Secret: shown as [secret] unless asked for with --show-secrets. */
export const kubeconfig = cluster.kubeconfig;
