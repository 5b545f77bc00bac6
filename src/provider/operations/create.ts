/**
 * `create`: POST the cluster, wait until it is running, fetch its kubeconfig. Instead of POSTing,
 * take the cluster named by the `import` option, or the one an interrupted earlier run of this
 * resource created (see `adoption.ts`). Once the cluster exists, every failure is a
 * {@link ClusterInitError} carrying its id, so the engine records it instead of forgetting it.
 */
import { codeOf } from "../../shared/cms-error";
import { OperationError } from "../errors";
import type { CreateResult } from "./results";
import { UnprovenOwnershipError } from "../../client/errors";
import { safeMessage } from "../../connection";
import type { ApiCluster, ApiClusterSummary } from "@pulumi-cms/contract";
import { adoptImported, findLeftover, nameProofOf } from "../adoption";
import { ClusterInitError } from "../errors";
import { toCreateRequest, toOutputs } from "../mapping";
import { ERROR_STATUS_HINT, nextSteps } from "../messages";
import { endProgress, warnFor } from "../progress";
import type { ClusterInputs } from "../types";
import { WaitError } from "../waiter";
import { type OperationContext, partialOutputs } from "./context";

export async function create(ctx: OperationContext, raw: Record<string, unknown>): Promise<CreateResult> {
  const inputs = raw as unknown as ClusterInputs;
  const { onProgress, client, secrets, waits } = await ctx.start("create", inputs);

  let first: ApiCluster | ApiClusterSummary | undefined;
  if (inputs.__import) {
    first = await adoptImported(client, inputs, secrets);
    onProgress?.(`importing ${first.id} (status ${first.status})`);
  } else {
    try {
      first = await findLeftover(client, inputs, ctx.stateMemory.previous(inputs.__urn)?.name, secrets);
    } catch (e) {
      if (e instanceof UnprovenOwnershipError) throw new OperationError(safeMessage(e, secrets), codeOf(e, "operation_failed"));
      throw e;
    }
    if (first && inputs.__urn) {
      await warnFor(
        inputs.__urn,
        `cluster ${first.id} ("${first.name}", ${first.status}) carries this stack's own auto-name for the resource: an earlier run that was interrupted created it, and it is taken over instead of creating another`,
      );
    }
  }
  const adopted = first !== undefined;
  if (!first) {
    try {
      first = await waits.send(() => client.createCluster(toCreateRequest(inputs), { nameProof: nameProofOf(inputs) }));
    } catch (e) {
      // Nothing was taken: the client returns a cluster after a lost reply only with proof that
      // it is this create's, and otherwise names the candidates in the error.
      throw new OperationError(`creating cluster "${inputs.name}" failed: ${safeMessage(e, secrets)}`, codeOf(e, "operation_failed"));
    }
    onProgress?.(`${first.status}: cluster ${first.id} accepted`);
  }
  const id = first.id;

  let last: ApiCluster | ApiClusterSummary = first;
  try {
    last = first.status === "running" && "endpoint" in first ? (first as ApiCluster) : await waits.running(id, !adopted); // a found cluster's status was just seen
    const kubeconfig = await client.getKubeconfig(id);
    // An import shows what it took over, however fast: the CLI only says "created".
    if (inputs.__import) await endProgress(inputs.__urn, `imported: cluster ${id} is running; no cluster was created`, true);
    else await endProgress(inputs.__urn, `running: cluster ${id} ready`);
    return { id, outs: toOutputs(last, inputs, kubeconfig) };
  } catch (e) {
    if (e instanceof WaitError && e.reason === "gone") {
      // Deleted behind our back: there is nothing left to keep in the stack.
      throw new OperationError(`${e.message}; nothing was kept in the stack`, e.code);
    }
    const seen = e instanceof WaitError && e.cluster ? e.cluster : last;
    const why = safeMessage(e, secrets);
    const hint = seen?.status === "error" ? ERROR_STATUS_HINT : nextSteps(inputs.__urn);
    // The message with its hint is also the init error the CLI shows (the host shows reasons).
    throw new ClusterInitError(`cluster ${id} was created but is not ready: ${why}. ${hint}`, id, partialOutputs(seen, inputs, undefined));
  }
}
