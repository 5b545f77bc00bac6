// One cluster of the Cluster Management Service, and what you need to reach it.
//
// The connection (endpoint and token) is not in the program: the Cluster reads the stack config
// (`cms:endpoint`, `cms:token`) or the environment (`CMS_ENDPOINT`, `CMS_TOKEN`).
import * as pulumi from "@pulumi/pulumi";
import * as cms from "pulumi-cms";

const config = new pulumi.Config();

const cluster = new cms.Cluster("basic", {
  controlPlanes: 1,
  workers: config.getNumber("workers") ?? 2,
  nodeSize: (config.get("nodeSize") ?? "small") as cms.NodeSize,
});

export const clusterId = cluster.id;
export const endpoint = cluster.endpoint;
export const kubernetesVersion = cluster.kubernetesVersion;
export const nodeCount = cluster.nodeCount;
// A secret: `pulumi stack output` shows [secret]; `--show-secrets` reveals it.
export const kubeconfig = cluster.kubeconfig;
