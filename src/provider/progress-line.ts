/** The text of one progress line. Pure. */
import type { ApiNodeList } from "../shared/wire-types";
import { formatDuration } from "../shared/durations";

/**
 * Status, nodes ready when known, and time waited, e.g. `provisioning: 3/6 nodes ready (1m20s)`.
 * Without a node list: `provisioning (1m20s)`.
 */
export function progressLine(status: string, nodes: ApiNodeList | undefined, elapsedMs: number): string {
  // Whole seconds: a wait's first poll comes within its first second.
  const waited = ` (${elapsedMs < 1_000 ? "0s" : formatDuration(elapsedMs)})`;
  if (!nodes || !Array.isArray(nodes.items)) return `${status}${waited}`;
  const ready = nodes.items.filter((n) => n.status === "ready").length;
  const total = typeof nodes.total === "number" ? Math.max(nodes.total, nodes.items.length) : nodes.items.length;
  return `${status}: ${ready}/${total} nodes ready${waited}`;
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
