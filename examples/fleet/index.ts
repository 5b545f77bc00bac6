// A fleet of clusters described entirely by stack config (Pulumi.<stack>.yaml), so the
// repository is the source of truth: a reviewed change to a size in the config file, then
// `pulumi up`, scales that cluster in place.
import * as pulumi from "@pulumi/pulumi";
import * as cms from "pulumi-cms";

/** One entry of the `clusters` config map. */
interface ClusterSpec {
  /** 1 (default) or 3. Changing it replaces the cluster. */
  controlPlanes?: 1 | 3;
  /** Number of workers. Changed in place. */
  workers: number;
  /** small, medium, large or xlarge. Changed in place. */
  nodeSize: cms.NodeSize;
}

const config = new pulumi.Config();
const specs = config.requireObject<Record<string, ClusterSpec>>("clusters");
const stack = pulumi.getStack();

const fleet: Record<string, cms.Cluster> = {};
for (const [key, spec] of Object.entries(specs)) {
  // The key is the resource name, so reordering the config never touches a cluster, and an
  // explicit service-side name ("dev-web") keeps the fleet readable in the service's console.
  // The price of a pinned name: a replacement (a controlPlanes change) deletes the old cluster
  // before creating the new one. Without `name`, the new cluster comes first (see docs/cluster.md).
  fleet[key] = new cms.Cluster(key, {
    name: `${stack}-${key}`,
    controlPlanes: spec.controlPlanes ?? 1,
    workers: spec.workers,
    nodeSize: spec.nodeSize,
  });
}

/** Per cluster: id, size and where to reach it. Kubeconfigs stay out (see `kubeconfigs`). */
export const clusters = Object.fromEntries(
  Object.entries(fleet).map(([key, c]) => [
    key,
    { id: c.id, name: c.name, workers: c.workers, nodeSize: c.nodeSize, nodeCount: c.nodeCount, endpoint: c.endpoint },
  ]),
);
/** Every kubeconfig, keyed like the config. Secret. */
export const kubeconfigs = pulumi.secret(pulumi.all(Object.fromEntries(Object.entries(fleet).map(([key, c]) => [key, c.kubeconfig]))));
