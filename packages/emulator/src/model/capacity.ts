/**
 * How much one emulator holds: everything is kept in memory and, with `--state`, reloaded at start,
 * so the amount is capped where both are known to work (a restart with 100,000 clusters is tested).
 * A change that would go past a cap is refused with 422 `quota_exceeded` before anything is made.
 * Nodes are counted as each cluster's size (control planes plus workers).
 */
import { ServiceError } from "../http/errors";

/** Clusters one emulator holds at most. */
export const MAX_CLUSTERS = 100_000;
/** Nodes (control planes plus workers of every cluster) one emulator holds at most. */
export const MAX_NODES = 1_000_000;

/** The caps of one emulator. */
export interface CapacityLimits {
  clusters: number;
  nodes: number;
}

/** The size of a cluster, as counted against {@link MAX_NODES}. */
export const sizeOf = (c: { control_planes: number; workers: number }): number => c.control_planes + c.workers;

const format = (n: number) => n.toLocaleString("en-US");

/** Clusters and nodes held, plus those of changes being written. */
export class Capacity {
  clusters = 0;
  nodes = 0;

  constructor(readonly limits: CapacityLimits = { clusters: MAX_CLUSTERS, nodes: MAX_NODES }) {}

  /** Counts what a change adds; throws 422 `quota_exceeded`, counting nothing, past a cap. */
  reserve(clusters: number, nodes: number): void {
    if (this.clusters + clusters > this.limits.clusters) {
      throw new ServiceError(
        422,
        "quota_exceeded",
        `The emulator holds at most ${format(this.limits.clusters)} clusters and holds ${format(this.clusters)}: delete clusters first`,
      );
    }
    if (this.nodes + nodes > this.limits.nodes) {
      throw new ServiceError(
        422,
        "quota_exceeded",
        `The emulator holds at most ${format(this.limits.nodes)} nodes (control planes and workers of all clusters): ` +
          `this change adds ${format(nodes)} and ${format(Math.max(0, this.limits.nodes - this.nodes))} are left`,
      );
    }
    this.clusters += clusters;
    this.nodes += nodes;
  }

  /** Counts what is there already, past the caps or not (a state file written with other caps). */
  hold(clusters: number, nodes: number): void {
    this.clusters += clusters;
    this.nodes += nodes;
  }

  /** Gives back what a change that was not made, or a cluster that is gone, had counted. */
  release(clusters: number, nodes: number): void {
    this.clusters -= clusters;
    this.nodes -= nodes;
  }
}
