/**
 * What the provider tells the user besides the service's own words: next steps after a failure
 * and the text of progress lines that end an operation.
 */
import { statusOf } from "../../client/errors";
import { safeMessage } from "../../connection";
import type { ApiCluster } from "@pulumi-cms/contract";

/** What a refused token during refresh or destroy means, and the commands that work. */
const STALE_TOKEN_HINT =
  "If you rotated the token: `pulumi refresh` and `pulumi destroy` use the stack configuration recorded by the last `pulumi up`, " +
  "so run them with `--run-program` (which reads the current `cms:token`), or set `CMS_TOKEN` to the new token, or run `pulumi up` first.";

/** The message of a refresh or destroy failure, with the stale-token hint after a 401. */
export function existingFailure(what: string, e: unknown, secrets: string[]): string {
  const hint = statusOf(e) === 401 ? ` ${STALE_TOKEN_HINT}` : "";
  return `${what}: ${safeMessage(e, secrets)}${hint}`;
}

/** Next steps for a cluster in `error`: diff replaces such a cluster on the next `up`. */
export const ERROR_STATUS_HINT =
  'A cluster in status "error" cannot recover: it is kept in the stack and the next `pulumi up` will replace it (or `pulumi destroy` removes it).';

/** Text added to init errors: what the user can do next. */
export function nextSteps(urnHint: string | undefined): string {
  const target = urnHint ? ` --target '${urnHint}'` : "";
  return `The cluster is kept in the stack: run \`pulumi up\` again to continue, or \`pulumi destroy${target}\` to remove it.`;
}

/** The size of a cluster, for the line that ends an update. */
export function describeCluster(c: ApiCluster): string {
  return `${c.workers} workers, nodeSize ${c.node_size}`;
}

/** What a PATCH changes, for its progress line. */
export function describePatch(patch: { workers?: number; node_size?: string }): string {
  const parts: string[] = [];
  if (patch.workers !== undefined) parts.push(`workers -> ${patch.workers}`);
  if (patch.node_size !== undefined) parts.push(`nodeSize -> ${patch.node_size}`);
  return parts.join(", ");
}
