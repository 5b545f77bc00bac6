/**
 * `delete`: DELETE (404 counts as done; 409 while busy waits and tries again), then wait until the
 * cluster is gone (404).
 */
import { codeOf } from "../../shared/errors/cms-error";
import { isNotFound } from "../../client/errors";
import { safeMessage } from "../../connection";
import { OperationError } from "../errors";
import { existingFailure } from "../progress/messages";
import { endProgress, progressFor } from "../progress/report";
import { deletedLine, goneLine } from "../progress/lines";
import { resolveTimeouts } from "../properties/timeouts";
import { WaitError } from "../polling/waiter";
import { type OperationContext, retryWhileBusy } from "./context";
import type { DeleteRequest } from "./requests";

export async function deleteCluster(ctx: OperationContext, request: DeleteRequest): Promise<void> {
  const { id, state, urn } = request;
  const onProgress = progressFor(ctx.sink(), urn);
  // First, before any call: in a replacement, the resource's line on show is the new cluster's.
  onProgress?.(goneLine(id, undefined));
  ctx.stateMemory.deleted(urn);
  const timeouts = resolveTimeouts(request.timeouts);
  const { client, connection } = await ctx.connector.connectExisting(state.connection, id, undefined, onProgress, {
    ms: timeouts.deleteMs,
    name: "delete timeout",
  });
  const secrets = [connection.token];
  const startedAt = ctx.clock().now();
  const deadline = startedAt + timeouts.deleteMs;
  const waits = await ctx.waitsFor({
    connection,
    startedAt,
    timeoutMs: timeouts.deleteMs,
    secrets,
    onProgress,
    deadlineName: "delete timeout",
  });

  /** Gone while waiting for it to settle: nothing left to delete. */
  let goneMeanwhile = false;
  try {
    await retryWhileBusy(
      () => waits.send(() => client.deleteCluster(id)),
      async (busy) => {
        if (ctx.clock().now() >= deadline) throw busy;
        // Busy with another operation: wait until it settles, then ask again.
        onProgress?.("waiting for the cluster to finish its current operation before deleting");
        try {
          await waits.running(id, false);
        } catch (w) {
          if (w instanceof WaitError && w.reason === "gone") {
            goneMeanwhile = true;
            throw w;
          }
          // "error" (DELETE is allowed then) or already "deleting": just try the DELETE again.
          if (!(w instanceof WaitError) || w.reason !== "failed") {
            throw new OperationError(`deleting cluster ${id} failed: ${safeMessage(w, secrets)}`);
          }
        }
      },
    );
  } catch (e) {
    if (goneMeanwhile || isNotFound(e)) return;
    if (e instanceof OperationError) throw e;
    throw new OperationError(existingFailure(`deleting cluster ${id} failed`, e, secrets), codeOf(e, "operation_failed"));
  }
  onProgress?.(goneLine(id, undefined));
  try {
    await waits.gone(id);
  } catch (e) {
    throw new OperationError(`deleting cluster ${id} failed: ${safeMessage(e, secrets)}`, codeOf(e, "operation_failed"));
  }
  await endProgress(ctx.sink(), urn, deletedLine(id, ctx.stateMemory.replacementCreatedNext(urn)));
}
