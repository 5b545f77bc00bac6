/** The text of one progress line. Pure. */
import type { ApiNodeList } from "../client/types";
import { formatDuration } from "./durations";

/**
 * Status, nodes ready when known, and time waited, e.g. `provisioning: 3/6 nodes ready (1m20s)`.
 * Without a node list: `provisioning (1m20s)`.
 */
export function progressLine(status: string, nodes: ApiNodeList | undefined, elapsedMs: number): string {
  const waited = ` (${formatDuration(elapsedMs)})`;
  if (!nodes || !Array.isArray(nodes.items)) return `${status}${waited}`;
  const ready = nodes.items.filter((n) => n.status === "ready").length;
  const total = typeof nodes.total === "number" ? Math.max(nodes.total, nodes.items.length) : nodes.items.length;
  return `${status}: ${ready}/${total} nodes ready${waited}`;
}
