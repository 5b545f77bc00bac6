/** The text of one progress line. Pure. */
import type { ApiNodeList } from "@pulumi-cms/contract";
import { formatDuration } from "../../shared/domain/durations";

// The CLI shows each line after its own words for the step and the time it has taken
// (`creating (1m20s)`, `deleting original (9s)`), so a line repeats neither.

/**
 * While waiting for a cluster to become running: its status and the nodes ready when known, e.g.
 * `provisioning: 3/6 nodes ready`; without a node list, the status alone.
 */
export function progressLine(status: string, nodes: ApiNodeList | undefined): string {
  if (!nodes || !Array.isArray(nodes.items)) return status;
  const ready = nodes.items.filter((n) => n.status === "ready").length;
  const total = typeof nodes.total === "number" ? Math.max(nodes.total, nodes.items.length) : nodes.items.length;
  return `${status}: ${ready}/${total} nodes ready`;
}

/**
 * The last line of a create: the cluster is running; in a replacement whose original is deleted
 * after it, that the original is deleted next.
 */
export function readyLine(id: string, originalDeletedNext: boolean): string {
  return originalDeletedNext ? `running: cluster ${id} ready; the original is deleted next` : `running: cluster ${id} ready`;
}

/**
 * The last line of a delete; in a replacement that deletes first, that the replacement is created
 * next (the CLI keeps the line on the resource's row through the replacement's first steps).
 */
export function deletedLine(id: string, replacementCreatedNext: boolean): string {
  return replacementCreatedNext ? `deleted: cluster ${id} is gone; the replacement is created next` : `deleted: cluster ${id} is gone`;
}

/**
 * While waiting for a deleted cluster to be gone, naming it: in a replacement the same resource
 * stands for two clusters, and this is the old one. Its status only when it is not `deleting`.
 */
export function goneLine(id: string, status: string | undefined): string {
  const line = `waiting for cluster ${id} to be gone`;
  return status === undefined || status === "deleting" ? line : `${line} (it is ${status})`;
}

/** What a retry looks like to the progress line (the client's `RetryInfo`, in part). */
export interface RetryShape {
  attempt: number;
  delayMs: number;
  status?: number;
  networkCode?: string;
}

/**
 * The line shown while the client waits to try again, e.g.
 * `cannot reach https://cms.example.com (ECONNREFUSED); attempt 3 in 8s`. Pure.
 */
export function retryLine(info: RetryShape, endpoint: string): string {
  const next = `attempt ${info.attempt + 1} in ${formatDuration(info.delayMs)}`;
  if (info.status === 429) return `rate limited by the service; ${next}`;
  if (info.status !== undefined) return `the service answered ${info.status}; ${next}`;
  return `cannot reach ${endpoint} (${info.networkCode ?? "no response"}); ${next}`;
}
