/**
 * `read`: refresh from the API. Returns `inputs` too, with the actual `workers`/`nodeSize`, so a
 * refresh followed by `up` puts back what the program says.
 *
 * A cluster that is gone (404), or being deleted (by someone else, or by a run of this stack
 * killed during its delete: nothing here tells them apart), leaves the stack: the result is
 * empty, as the SDK expects, and the next `up` creates a new one if the program declares it.
 *
 * Also serves lookups (`Cluster.get`, `pulumi import`: the request's `lookup`), where the state holds no cluster yet: there, a
 * missing, hidden or deleting cluster fails the run naming the id, since an empty result would
 * record a resource without a kubeconfig and anything built on it would fall back to some other
 * cluster.
 */
import { codeOf } from "../../shared/errors/cms-error";
import { ClusterLookupError, OperationError } from "../errors";
import type { ReadResult } from "./results";
import { isNotFound, statusOf } from "../../client/errors";
import { notVisible } from "../../connection";
import type { ApiCluster } from "@pulumi-cms/contract";
import { chooseKubeconfig } from "../properties/kubeconfig";
import { toInputsAfterRead, toOutputs } from "../properties/mapping";
import { existingFailure } from "../progress/messages";
import { endProgress, progressFor, warnFor } from "../progress/report";
import { readCluster } from "../polling/shared-reads";
import type { OperationContext } from "./context";
import type { ReadRequest } from "./requests";

export async function read(ctx: OperationContext, request: ReadRequest): Promise<ReadResult> {
  const { id, urn, lookup } = request;
  const props = request.state;
  const getting = lookup !== undefined;
  // A read shows a line only while the client waits to retry; then its outcome replaces it.
  const shown = progressFor(ctx.sink(), urn);
  let retried = false;
  const onProgress =
    shown &&
    ((line: string) => {
      retried = true;
      shown(line);
    });
  const { client, connection } = await ctx.connector.connectExisting(
    props.connection,
    id,
    (c) => readCluster(ctx.runtime, ctx.clock(), c, id),
    onProgress,
  );
  const secrets = [connection.token];
  let cluster: ApiCluster;
  let fresh: string;
  try {
    // From list pages shared by the reads of this pass (one GET when the pages cannot tell).
    cluster = await readCluster(ctx.runtime, ctx.clock(), client, id);
    if (cluster.status === "deleting") {
      if (getting) throw new ClusterLookupError(`${lookup}: cluster ${id} is being deleted`, id);
      if (urn) {
        await warnFor(
          ctx.sink(),
          urn,
          `cluster ${id} is being deleted (outside Pulumi, or by a run of this stack killed during its delete): it leaves the stack, and the next \`pulumi up\` creates a new one if the program still declares it`,
        );
      }
      return {};
    }
    fresh = await client.getKubeconfig(id, { known: props.kubeconfig });
  } catch (e) {
    if (getting) {
      if (isNotFound(e) || statusOf(e) === 403) {
        throw new ClusterLookupError(`${lookup}: cluster ${id} ${notVisible(e, secrets)}`, id);
      }
      if (e instanceof ClusterLookupError) throw e;
    } else if (isNotFound(e)) {
      return {};
    }
    throw new OperationError(existingFailure(`reading cluster ${id} failed`, e, secrets), codeOf(e, "operation_failed"));
  }
  const kubeconfig = chooseKubeconfig(props.kubeconfig, fresh);
  if (retried) await endProgress(ctx.sink(), urn, `read: cluster ${id} is ${cluster.status}`);
  return {
    id: cluster.id,
    props: toOutputs(cluster, props, kubeconfig),
    inputs: toInputsAfterRead(cluster, props),
  };
}
