/**
 * The cluster operations of `/v1`, one function per API operation. Each receives the
 * emulator state, the caller's token and already schema-checked input, and either returns
 * the response body or throws an {@link ServiceError}. Nothing changes before every check passed.
 */
import {
  type ApiCluster,
  type ApiClusterList,
  type ApiClusterSummary,
  CLUSTER_FIELDS,
  type ClusterStatus,
  type CreateClusterRequest,
  type UpdateClusterRequest,
  wireArguments,
} from "@pulumi-cms/contract";
import { requireCreateScope, requireScope, type Principal } from "../http/auth";
import { clusterNotFound, conflict, validationFailed } from "../http/errors";
import { setInPlace, startDeletion, scaleCluster, settle } from "../model/lifecycle";
import type { ClusterRecord, CreateInput } from "../model/records";
import { toApiCluster, toSummary } from "../http/wire-view";
import type { EmulatorState } from "../model/state";

/** Validated query of GET /v1/clusters. */
export interface ListQuery {
  page?: string;
  per_page?: string;
  status?: ClusterStatus;
}

/** GET /v1/clusters: oldest first, limited to the token's scope. */
export function listClusters(state: EmulatorState, p: Principal, q: ListQuery): ApiClusterList {
  const page = listClusterRecords(state, p, q);
  return { ...page, items: page.items.map(toApiCluster) };
}

/** A list page as stored records (the route renders them from cached JSON). */
export interface RecordPage {
  items: ClusterRecord[];
  total: number;
  page: number;
  per_page: number;
}

/** {@link listClusters} without building the response objects. */
export function listClusterRecords(state: EmulatorState, p: Principal, q: ListQuery): RecordPage {
  const page = q.page ? Number(q.page) : 1;
  const perPage = q.per_page ? Number(q.per_page) : 20;
  const now = state.now();
  state.purge(now);
  let total: number;
  const items: ClusterRecord[] = [];
  const start = (page - 1) * perPage;
  if (p.clusterId !== undefined) {
    const c = state.get(p.clusterId, now);
    const all = c && (!q.status || c.status === q.status) ? [c] : [];
    total = all.length;
    items.push(...all.slice(start, start + perPage));
  } else if (q.status) {
    // The filter needs every cluster's current status: settle them all (cheap when idle), and
    // keep only the requested page of the matches.
    total = 0;
    for (const c of state.inOrder()) {
      settle(c, now);
      if (c.status !== q.status) continue;
      if (total >= start && total < start + perPage) items.push(c);
      total++;
    }
  } else {
    const all = state.inOrder();
    total = all.length;
    for (const c of all.slice(start, start + perPage)) {
      settle(c, now);
      items.push(c);
    }
  }
  return { items, total, page, per_page: perPage };
}

/** Validated body of POST /v1/clusters: the wire request, checked by the route schema. */
export type CreateBody = CreateClusterRequest;

/**
 * POST /v1/clusters: a new cluster in `provisioning`, visible and answered once it is durable
 * (with `--state`). With `--kubernetes`, once its API server has its place (the answer carries it).
 */
export async function createCluster(state: EmulatorState, p: Principal, body: CreateBody): Promise<ApiClusterSummary> {
  requireCreateScope(p);
  const input = createInput(body);
  if (input.phase !== CLUSTER_FIELDS.phase.default && input.infra_id === null) {
    throw validationFailed(`infra_id is required when phase is ${input.phase} (it is optional only for ${CLUSTER_FIELDS.phase.default})`);
  }
  return state.exclusive(undefined, async () => toSummary(await state.create(input)));
}

/** Every argument of the create's body by the contract's declaration: an absent one at its declared default, else `null`. */
function createInput(body: CreateBody): CreateInput {
  const input: Record<string, unknown> = {};
  for (const [, f] of wireArguments()) input[f.wire] = (body as Record<string, unknown>)[f.wire] ?? f.default ?? null;
  return input as CreateInput;
}

/** Finds a cluster the token may act on: 404 when unknown, then 403 when out of scope. */
export function findCluster(state: EmulatorState, p: Principal, id: string, action: string): ClusterRecord {
  const c = state.get(id);
  if (!c) throw clusterNotFound(id);
  requireScope(p, c.id, action);
  return c;
}

/** GET /v1/clusters/{id}. */
export function getCluster(state: EmulatorState, p: Principal, id: string): ApiCluster {
  return toApiCluster(findCluster(state, p, id, "reading"));
}

/** Validated body of PATCH /v1/clusters/{id}: the wire request, checked by the route schema. */
export type UpdateBody = UpdateClusterRequest;

/**
 * PATCH /v1/clusters/{id}: only on a `running` cluster (409 otherwise). A change moves it
 * to `scaling`; a PATCH that changes nothing answers the cluster unchanged. The answer shows the
 * cluster as a GET at that instant would: a change that takes no time (scaling set to 0 s) is
 * answered `running`, already done.
 */
export function updateCluster(state: EmulatorState, p: Principal, id: string, body: UpdateBody): Promise<ApiCluster> {
  return state.exclusive(id, async () => {
    const c = findCluster(state, p, id, "modifying");
    if (c.status !== "running") {
      throw conflict(`Cluster ${c.id} is ${c.status}; it can be modified only when running`);
    }
    await state.updateOrFail(c, (draft, fail) => {
      const set = setInPlace(draft, body, state.now());
      return scaleCluster(draft, body, state.now(), state.durations.scale, fail) || set;
    });
    settle(c, state.now());
    return toApiCluster(c);
  });
}

/**
 * DELETE /v1/clusters/{id}: allowed when `running` or `error`; it is `deleting` until gone.
 * Deleting a cluster that is already `deleting` answers 204 again and changes nothing.
 */
export function deleteCluster(state: EmulatorState, p: Principal, id: string): Promise<void> {
  return state.exclusive(id, async () => {
    const c = findCluster(state, p, id, "deleting");
    if (c.status === "deleting") return;
    if (c.status !== "running" && c.status !== "error") {
      throw conflict(`Cluster ${c.id} is ${c.status}; it can be deleted only when running or in error`);
    }
    await state.update(c, (draft) => {
      startDeletion(draft, state.now(), state.durations.delete);
      return true;
    });
    state.markDeleting(c.id);
  });
}
