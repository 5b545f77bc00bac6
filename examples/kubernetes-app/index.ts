// A cluster, a Kubernetes provider connected to it, and an app (namespace, deployment, service)
// deployed through that provider. The kubeconfig never leaves Pulumi's secrets: the provider
// gets it as a secret, and this program exports nothing that contains it.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as cms from "pulumi-cms";

const config = new pulumi.Config();
const replicas = config.getNumber("replicas") ?? 2;
const image = config.get("image") ?? "nginx:1.27-alpine";

const controlPlanes = config.getNumber("controlPlanes") ?? 1;
if (controlPlanes !== 1 && controlPlanes !== 3) throw new Error(`controlPlanes must be 1 or 3, not ${controlPlanes}`);

const cluster = new cms.Cluster("apps", {
  controlPlanes,
  workers: config.getNumber("workers") ?? 2,
  nodeSize: "medium",
});

// One line, like `cluster.provider` in @pulumi/eks. Server-side apply on; the provider is only
// replaced (redeploying everything below) when the cluster itself is replaced.
const provider = cms.kubernetesProvider(cluster);

const namespace = new k8s.core.v1.Namespace("hello", { metadata: { name: "hello" } }, { provider });

const labels = { app: "hello" };
const deployment = new k8s.apps.v1.Deployment(
  "hello",
  {
    metadata: { namespace: namespace.metadata.name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: "hello",
              image,
              ports: [{ name: "http", containerPort: 80 }],
              readinessProbe: { httpGet: { path: "/", port: "http" } },
              resources: { requests: { cpu: "50m", memory: "32Mi" }, limits: { memory: "64Mi" } },
            },
          ],
        },
      },
    },
  },
  { provider },
);

const service = new k8s.core.v1.Service(
  "hello",
  {
    metadata: { namespace: namespace.metadata.name, labels },
    spec: { type: "ClusterIP", selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  },
  { provider },
);

export const clusterId = cluster.id;
export const clusterEndpoint = cluster.endpoint;
export const namespaceName = namespace.metadata.name;
export const deploymentName = deployment.metadata.name;
export const serviceName = service.metadata.name;
/** In-cluster address of the app. */
export const url = pulumi.interpolate`http://${service.metadata.name}.${namespace.metadata.name}.svc.cluster.local`;
