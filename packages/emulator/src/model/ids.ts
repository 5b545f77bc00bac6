import { randomBytes } from "node:crypto";

/** `cls_` + 16 lowercase hex characters. */
export function newClusterId(): string {
  return `cls_${randomBytes(8).toString("hex")}`;
}

/** `node_` + 16 lowercase hex characters. */
export function newNodeId(): string {
  return `node_${randomBytes(8).toString("hex")}`;
}

/** A random secret with a readable prefix, e.g. `cms_dev_…`. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(20).toString("hex")}`;
}
