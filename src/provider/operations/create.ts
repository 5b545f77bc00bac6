/**
 * `create`: POST the cluster, wait until it is running, fetch its kubeconfig. Instead of POSTing,
 * take the cluster named by the `import` option, or the one an interrupted earlier run of this
 * resource created (see `../naming/adoption.ts`). Once the cluster exists, every failure is a
 * {@link ClusterInitError} carrying its id, so the engine records it instead of forgetting it.
 */
import { codeOf } from "../../shared/errors/cms-error";
import { ClusterInitError, OperationError } from "../errors";
import type { CreateResult } from "./results";
import { UnprovenOwnershipError } from "../../client/errors";
import { safeMessage } from "../../connection";
import { type ApiCluster, type ApiClusterSummary, clusterFieldsWhere } from "@pulumi-cms/contract";
import { adoptImported, findLeftover, nameProofOf, refuseUnrecordedName } from "../naming/adoption";
import { toCreateRequest, toOutputs } from "../properties/mapping";
import { ERROR_STATUS_HINT, nextSteps } from "../progress/messages";
import { endProgress, warnFor } from "../progress/report";
import { readyLine } from "../progress/lines";
import type { ClusterInputs, ClusterOutputs } from "../types";
import { UNKNOWN } from "../properties/unknown";
import { WaitError } from "../polling/waiter";
import { type OperationContext, partialOutputs } from "./context";
import type { CreateRequest, Previewed } from "./requests";

export async function create(ctx: OperationContext, request: CreateRequest): Promise<CreateResult> {
  if (request.preview) {
    return { id: "", outs: previewOutputs(request.inputs) };
  }
  const { inputs, urn, importId } = request;
  const { onProgress, client, secrets, waits } = await ctx.start("create", request, inputs.connection);

  let first: ApiCluster | ApiClusterSummary | undefined;
  if (importId) {
    first = await adoptImported(client, importId, inputs, secrets);
    onProgress?.(`importing ${first.id} (status ${first.status})`);
  } else {
    try {
      first = await findLeftover(ctx.runtime, client, inputs, urn, ctx.stateMemory.previous(urn)?.name, secrets);
    } catch (e) {
      if (e instanceof UnprovenOwnershipError) throw new OperationError(safeMessage(e, secrets), codeOf(e, "operation_failed"));
      throw e;
    }
    if (first && urn) {
      await warnFor(
        ctx.sink(),
        urn,
        `cluster ${first.id} ("${first.name}", ${first.status}) carries this stack's own auto-name for the resource: an earlier run that was interrupted created it, and it is taken over instead of creating another`,
      );
    }
  }
  const adopted = first !== undefined;
  if (!first) {
    await refuseUnrecordedName(ctx.runtime, client, inputs, urn, ctx.settings().env ?? process.env, secrets);
    try {
      first = await waits.send(() => client.createCluster(toCreateRequest(inputs), { nameProof: nameProofOf(inputs, urn) }));
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
    if (importId) await endProgress(ctx.sink(), urn, `imported: cluster ${id} is running; no cluster was created`, true);
    // In a replacement that creates first, the CLI keeps this line on the original's delete row
    // until the delete's own line comes: it says what comes next.
    else await endProgress(ctx.sink(), urn, readyLine(id, ctx.stateMemory.originalDeletedNext(urn)));
    ctx.stateMemory.created(urn);
    return { id, outs: toOutputs(last, inputs, kubeconfig) };
  } catch (e) {
    if (e instanceof WaitError && e.reason === "gone") {
      // Deleted behind our back: there is nothing left to keep in the stack.
      throw new OperationError(`${e.message}; nothing was kept in the stack`, e.code);
    }
    const seen = e instanceof WaitError && e.cluster ? e.cluster : last;
    const why = safeMessage(e, secrets);
    const hint = seen?.status === "error" ? ERROR_STATUS_HINT : nextSteps(urn);
    // The message with its hint is also the init error the CLI shows (the host shows reasons).
    throw new ClusterInitError(`cluster ${id} was created but is not ready: ${why}. ${hint}`, id, partialOutputs(seen, inputs, undefined));
  }
}

/** The outputs that are not arguments: what the service (or its kubeconfig) reports. */
const REPORTED_ONLY = clusterFieldsWhere((f) => f.output !== undefined && f.input === undefined);

/** What a preview shows for a cluster to be created: the inputs, every reported value unknown. */
function previewOutputs(inputs: Previewed<ClusterInputs>): ClusterOutputs {
  const out: Record<string, unknown> = { ...inputs };
  for (const k of REPORTED_ONLY) out[k] = UNKNOWN;
  return out as unknown as ClusterOutputs;
}
