/**
 * The text a Pulumi user sees for a failure: the error's message with every secret replaced, and
 * for the service's errors the Pulumi way to act on them (`pulumi config set`, `pulumi up --refresh`).
 * The client's own messages stay free of Pulumi: it is a general-purpose client.
 */
import { ForbiddenError, NotFoundError, UnauthorizedError, UnprovenOwnershipError } from "../client/errors";
import { redact } from "../client/redact";
import { parseApiPath } from "../shared/domain/api-paths";
import { CONFIG_TOKEN_KEY, ENV_TOKEN } from "./resolve";

/**
 * What the failed call was for: a resource the stack holds (`"stack"`: a cluster missing there may
 * have been deleted outside Pulumi, which `pulumi up --refresh` records), or a lookup by id
 * (`"lookup"`: `Cluster.get` and the functions, which the stack does not hold).
 */
export type FailureContext = "stack" | "lookup";

/** What a Pulumi user does about this error, or `undefined` when the client's hint says it all. */
export function pulumiAdvice(e: unknown, context: FailureContext = "stack"): string | undefined {
  if (e instanceof UnauthorizedError || e instanceof ForbiddenError) {
    return `Set the token with \`pulumi config set --secret ${CONFIG_TOKEN_KEY} <token>\` or the \`${ENV_TOKEN}\` environment variable.`;
  }
  if (e instanceof UnprovenOwnershipError) {
    return (
      "If one of them is this stack's, set the Cluster's `import` resource option to its id and run `pulumi up` " +
      "(after a killed run: `cms-recover --adopt <id>`); if none is, give the Cluster another `name`."
    );
  }
  if (e instanceof NotFoundError && context === "stack") {
    const { clusterId, nodeId } = parseApiPath(e.path) ?? {};
    if (clusterId && !nodeId) return "If it was deleted outside Pulumi, `pulumi up --refresh` records that and creates it again.";
  }
  return undefined;
}

/**
 * The message of any thrown value, with the Pulumi advice for it and every occurrence of the given
 * secrets replaced. The client already keeps tokens out of its errors; this is the second lock on
 * the door, for messages that reach the Pulumi CLI and its logs.
 */
export function safeMessage(e: unknown, secrets: ReadonlyArray<string | undefined> = [], context: FailureContext = "stack"): string {
  const raw = e instanceof Error ? e.message : typeof e === "string" ? e : String(e);
  const advice = pulumiAdvice(e, context);
  return redact(advice ? `${raw} ${advice}` : raw, secrets);
}

/**
 * Why a lookup by id (`Cluster.get`, `pulumi import`, the `import` option, the functions) found no
 * cluster, after "cluster ID": said once. A 404's own words ("cls_… not found") would only repeat
 * the id, so its request and answer stand in for them, then what to check; another failure (a
 * 403 naming the missing permission or scope) keeps its own words.
 */
export function notVisible(e: unknown, secrets: ReadonlyArray<string | undefined>): string {
  const why =
    e instanceof NotFoundError
      ? `(${e.method} answered ${e.status} ${e.code}): check the id, and that the token's scope covers it`
      : `(${safeMessage(e, secrets, "lookup")})`;
  return `does not exist or is not visible to the token in use ${why}`;
}
