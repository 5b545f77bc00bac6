/**
 * `check`: validate inputs and fill defaults (see `../properties/check.ts`). Makes no API call.
 *
 * The engine calls it with the old inputs for a resource in the state, and once more without them
 * when it replaces the resource (only the call without them for `up --replace`). A replacement is
 * recognised from the first call (see `StateMemory`) or from the name the program read from the
 * state (`inState`): it gets the next auto-name generation, and no call keeps the `import` id,
 * which the engine ignores once the resource is in the state (a replacement must create a
 * cluster, not adopt the one it replaces or has just deleted).
 */
import type { CheckResult } from "./results";
import type { ConnectionInputs } from "../../connection";
import { checkCluster } from "../properties/check";
import { nextAutoNameGeneration } from "../naming/auto-name";
import { containsUnknown } from "../properties/unknown";
import type { OperationContext } from "./context";
import type { CheckRequest } from "./requests";

export async function check(ctx: OperationContext, request: CheckRequest): Promise<CheckResult> {
  const { urn, olds, news } = request;
  const inState = olds !== undefined && olds !== null && Object.keys(olds).length > 0;
  if (inState && urn) ctx.stateMemory.remember(urn, olds);
  // Replaced: after a check with olds in this process, or (for `--replace`, which skips that
  // check) as the program read it from the state.
  const recorded = request.inState;
  const replaced = inState ? undefined : (ctx.stateMemory.previous(urn) ?? (recorded?.name ? { name: recorded.name } : undefined));
  const seed = typeof request.seed === "string" ? request.seed : undefined;
  const generation = replaced && urn ? nextAutoNameGeneration(urn, replaced.name, seed) : 0;
  const { inputs, failures } = checkCluster(olds, news, {
    generation,
    urn,
    seed: request.seed,
    timeouts: request.timeouts,
    importId: request.importId,
  });
  // Before any API call, in `preview` too: a pull request's preview fails as its merge's `up`
  // would when no endpoint or token is configured (unless the connection is computed later).
  if (!containsUnknown(news.connection)) {
    ctx.connector.resolve(inputs.connection as ConnectionInputs | undefined);
  }
  // When this check leads to a create (no olds), the engine stores its inputs in a pending
  // operation first: the time lets `cms-recover` tell a cluster this create made from one that
  // carried the same name before (see src/recover).
  if (!inState) inputs.__requestedAt = new Date(ctx.clock().now()).toISOString();
  const importId = request.importId;
  if (inState || replaced) return { inputs, failures };
  if (importId !== undefined && importId !== null && inputs.__autonamed === true) {
    // Importing compares the program with the existing cluster, so the name must be the user's.
    failures.push({
      property: "name",
      reason: "name is required with the import option: set it to the existing cluster's name",
    });
  }
  return { inputs, failures, importId };
}
