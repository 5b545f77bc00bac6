/**
 * `update`: one PATCH with just the changed fields; while the cluster is busy (409) wait for it to
 * be running and try again; then wait for running. Also the path the engine takes on the `up`
 * after a partial failure: with nothing to change it waits for the cluster, or reports clearly
 * that it is in `error`.
 */
import { codeOf } from "../../shared/errors/cms-error";
import { ClusterInitError, OperationError } from "../errors";
import type { UpdateResult } from "./results";
import { isNotFound } from "../../client/errors";
import { safeMessage } from "../../connection";
import type { ApiCluster } from "@pulumi-cms/contract";
import { toOutputs, toUpdateRequest } from "../properties/mapping";
import { describeCluster, describePatch, ERROR_STATUS_HINT, nextSteps } from "../progress/messages";
import { endProgress } from "../progress/report";
import { WaitError } from "../polling/waiter";
import { type OperationContext, partialOutputs, retryWhileBusy } from "./context";
import type { UpdateRequest } from "./requests";
import type { ClusterOutputs } from "../types";

export async function update(ctx: OperationContext, request: UpdateRequest): Promise<UpdateResult> {
  if (request.preview) {
    // The state's outputs with the inputs' changes, unknown where the inputs are.
    return { outs: { ...request.olds, ...request.news } as ClusterOutputs };
  }
  const { id, olds, news, urn } = request;
  const { onProgress, client, secrets, waits } = await ctx.start("update", request, news.connection);
  const patch = toUpdateRequest(olds, news);

  let last: ApiCluster | undefined;
  try {
    if (Object.keys(patch).length > 0) {
      last = await retryWhileBusy(
        () => waits.send(() => client.updateCluster(id, patch)),
        async () => {
          // Busy (provisioning, scaling, upgrading...): wait for running, then send it again.
          onProgress?.("waiting for the cluster to finish its current operation");
          last = await waits.running(id, false);
        },
      );
      // Done at once (the answer says running): the last line below says so, one message fewer.
      if (last.status !== "running") {
        onProgress?.(`${last.status}: ${describePatch(patch)}`);
        last = await waits.running(id);
      }
    } else {
      last = await client.getCluster(id);
      if (last.status !== "running") last = await waits.running(id, false);
    }
    // Scaling or resizing does not change the credentials: keep the kubeconfig already in
    // state (a refresh picks up a rotation). Fetch it only when state has none yet, e.g. on
    // the up after a create that failed before its kubeconfig was read.
    const kubeconfig = olds.kubeconfig ? olds.kubeconfig : await client.getKubeconfig(id);
    await endProgress(ctx.sink(), urn, `running: ${describeCluster(last)}`);
    return { outs: toOutputs(last, news, kubeconfig) };
  } catch (e) {
    const why = safeMessage(e, secrets);
    if (isNotFound(e) || (e instanceof WaitError && e.reason === "gone")) {
      throw new OperationError(
        `cluster ${id} no longer exists (deleted outside Pulumi?): \`pulumi up --refresh\` records that and creates it again`,
      );
    }
    if (!last && !(e instanceof WaitError)) {
      // The PATCH itself was refused (validation, permission...): nothing changed.
      throw new OperationError(`updating cluster ${id} failed: ${why}`, codeOf(e, "operation_failed"));
    }
    const seen = e instanceof WaitError && e.cluster ? e.cluster : last;
    const hint = seen?.status === "error" ? ` ${ERROR_STATUS_HINT}` : ` ${nextSteps(urn)}`;
    throw new ClusterInitError(`cluster ${id} did not finish updating: ${why}.${hint}`, id, partialOutputs(seen, news, olds.kubeconfig));
  }
}
