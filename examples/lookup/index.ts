// Read-only: lists the clusters the token can see and the nodes of each, with the package's
// functions, and exports a summary. No resource is created, so `pulumi destroy` has nothing to
// delete and the clusters are never touched.
import * as pulumi from "@pulumi/pulumi";
import * as cms from "pulumi-cms";

const config = new pulumi.Config();
const status = (config.get("status") || undefined) as cms.ClusterStatus | undefined;

const found = cms.getClustersOutput({ status });

/** One line of the summary per cluster. */
interface ClusterSummary {
  id: string;
  name: string;
  status: string;
  nodeSize: string;
  controlPlanes: number;
  workers: number;
  /** Node names by role, as listed by getNodes. */
  nodes: { controlPlane: string[]; worker: string[] };
  /** Nodes that are not `ready`. */
  notReady: number;
}

export const clusters: pulumi.Output<ClusterSummary[]> = found.apply((r) =>
  Promise.all(
    r.clusters.map(async (c): Promise<ClusterSummary> => {
      const { nodes } = await cms.getNodes({ clusterId: c.id });
      return {
        id: c.id,
        name: c.name,
        status: c.status,
        nodeSize: c.nodeSize,
        controlPlanes: c.controlPlanes,
        workers: c.workers,
        nodes: {
          controlPlane: nodes.filter((n) => n.role === "controlplane").map((n) => n.name),
          worker: nodes.filter((n) => n.role === "worker").map((n) => n.name),
        },
        notReady: nodes.filter((n) => n.status !== "ready").length,
      };
    }),
  ),
);
export const clusterCount = found.apply((r) => r.clusters.length);
export const nodeCount = clusters.apply((cs) => cs.reduce((sum, c) => sum + c.nodes.controlPlane.length + c.nodes.worker.length, 0));
/** How many clusters are in each status. */
export const byStatus = found.apply((r) => {
  const counts: Record<string, number> = {};
  for (const c of r.clusters) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return counts;
});
