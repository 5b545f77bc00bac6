/**
 * How clusters and nodes move through their statuses over time.
 *
 * Nothing here uses timers. Starting an operation writes its future as timestamped events
 * (a node's `pending` list, a cluster's `op.endsAt`); {@link settle} applies whatever is due
 * whenever a cluster is read. This is deterministic under a manual clock, costs nothing for
 * idle clusters (10,000 of them are just data), and survives a restart because the state
 * file holds the same timestamps.
 *
 * The transitions take the time and the duration as arguments and do no I/O: given a record, they
 * are checked without a server (test/model/lifecycle.test.ts). The records they move are records.ts's;
 * what the API answers, http/wire-view.ts's.
 */
import { CLUSTER_FIELDS, type NodeRole, type NodeSize, type UpdateClusterRequest, wireNames } from "@pulumi-cms/contract";
import { type ClusterRecord, type CreateInput, type KubeconfigCredential, type NodeEvent, type NodeRecord, touch } from "./records";
import { newClusterId, newNodeId, newSecret } from "./ids";

/** Kubernetes version of new clusters. */
export const DEFAULT_KUBERNETES_VERSION = "v1.30.4";
/** Operating system version of every node. */
export const TALOS_VERSION = "v1.7.6";

/** Splits `[start, start+duration]` into `k` consecutive windows; the last ends exactly at the end. */
function windows(start: number, durationMs: number, k: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < k; i++) {
    out.push([start + Math.round((durationMs * i) / k), start + Math.round((durationMs * (i + 1)) / k)]);
  }
  return out;
}

/** A time `fraction` of the way through `[s, e]`. */
function within(s: number, e: number, fraction: number): number {
  return s + Math.round((e - s) * fraction);
}

function nodeAddress(c: ClusterRecord): string {
  const used = new Set(c.nodes.map((n) => n.ip_address));
  const prefix = `10.${(c.subnet >> 8) & 255}.${c.subnet & 255}.`;
  for (let host = 10; host < 255; host++) {
    if (!used.has(prefix + host)) return prefix + host;
  }
  // More than 245 nodes cannot happen with the workers cap; fall back to a shared address.
  return `${prefix}254`;
}

function newNode(c: ClusterRecord, role: NodeRole, name: string, size: NodeSize, now: number): NodeRecord {
  const node: NodeRecord = {
    id: newNodeId(),
    name,
    role,
    status: "provisioning",
    node_size: size,
    ip_address: "",
    kubernetes_version: c.kubernetes_version,
    talos_version: TALOS_VERSION,
    created_at: iso(now),
  };
  node.ip_address = nodeAddress(c);
  return node;
}

function addWorker(c: ClusterRecord, size: NodeSize, now: number): NodeRecord {
  c.workerSeq += 1;
  const node = newNode(c, "worker", `${c.name}-worker-${c.workerSeq}`, size, now);
  c.nodes.push(node);
  return node;
}

function schedule(node: NodeRecord, events: NodeEvent[]): void {
  node.pending = [...(node.pending ?? []), ...events].sort((a, b) => a.at - b.at);
}

/** Turns the final event of an operation into a failure: the node ends `not_ready`. */
function failLast(node: NodeRecord): void {
  const last = node.pending?.[node.pending.length - 1];
  if (last) {
    last.status = "not_ready";
    delete last.node_size;
    delete last.kubernetes_version;
  }
}

function recomputeNextAt(c: ClusterRecord): void {
  let next = c.op ? c.op.endsAt : Infinity;
  for (const n of c.nodes) if (n.pending && n.pending[0].at < next) next = n.pending[0].at;
  c.nextAt = next;
}

/**
 * A new cluster in `provisioning`. All its nodes exist at once and walk
 * provisioning → installing → joining → ready in parallel, finishing at staggered times
 * (node i of N is ready at (i+1)/N of the window), so the last one is ready exactly when
 * the cluster turns `running`.
 */
export function provisionCluster(input: CreateInput, now: number, durationMs: number, fail: boolean, subnet: number): ClusterRecord {
  const id = newClusterId();
  const c: ClusterRecord = {
    id,
    // Every argument the create took, as the contract declares them.
    ...input,
    kubernetes_version: DEFAULT_KUBERNETES_VERSION,
    endpoint: `https://${id.slice(4)}.clusters.cms.example:6443`,
    created_at: iso(now),
    updated_at: iso(now),
    status: "provisioning",
    nodes: [],
    nextAt: now,
    kubeconfig: newKubeconfigCredential(),
    subnet,
    workerSeq: 0,
  };
  for (let i = 1; i <= input.control_planes; i++) {
    c.nodes.push(newNode(c, "controlplane", `${input.name}-cp-${i}`, input.node_size, now));
  }
  for (let i = 0; i < input.workers; i++) addWorker(c, input.node_size, now);
  const n = c.nodes.length;
  c.nodes.forEach((node, i) => {
    const readyAt = now + Math.round((durationMs * (i + 1)) / n);
    schedule(node, [
      { at: within(now, readyAt, 0.4), status: "installing" },
      { at: within(now, readyAt, 0.75), status: "joining" },
      { at: readyAt, status: "ready" },
    ]);
  });
  if (fail) failLast(c.nodes[n - 1]);
  c.op = { kind: "provision", startedAt: now, endsAt: now + durationMs, fail };
  recomputeNextAt(c);
  return c;
}

/** A fresh kubeconfig credential and CA. */
export function newKubeconfigCredential(): KubeconfigCredential {
  return { token: newSecret("kc_"), ca: newSecret("") };
}

/**
 * Starts a change of worker count and/or node size on a `running` cluster; it is `scaling`
 * until every node task is done. Tasks run one after another (a rolling change): new
 * workers first, then the resize of kept nodes, then the removal of surplus workers (newest
 * first). Returns false, changing nothing, when the target equals the current shape.
 */
export function scaleCluster(
  c: ClusterRecord,
  target: { workers?: number; node_size?: NodeSize },
  now: number,
  durationMs: number,
  fail: boolean,
): boolean {
  const workers = target.workers ?? c.workers;
  const size = target.node_size ?? c.node_size;
  const current = c.nodes.filter((n) => n.role === "worker");
  const tasks: Array<(s: number, e: number) => NodeRecord> = [];
  for (let i = current.length; i < workers; i++) {
    tasks.push((s, e) => {
      const node = addWorker(c, size, now);
      schedule(node, [
        { at: within(s, e, 0.4), status: "installing" },
        { at: within(s, e, 0.75), status: "joining" },
        { at: e, status: "ready" },
      ]);
      return node;
    });
  }
  const kept = [...c.nodes.filter((n) => n.role === "controlplane"), ...current.slice(0, workers)];
  if (size !== c.node_size) {
    for (const node of kept) {
      tasks.push((s, e) => {
        schedule(node, [
          { at: s, status: "draining" },
          { at: within(s, e, 0.4), status: "not_ready" },
          { at: e, status: "ready", node_size: size },
        ]);
        return node;
      });
    }
  }
  for (const node of current.slice(workers).reverse()) {
    tasks.push((s, e) => {
      schedule(node, [
        { at: s, status: "draining" },
        { at: within(s, e, 0.5), status: "deleting" },
        { at: e, status: "gone" },
      ]);
      return node;
    });
  }
  if (tasks.length === 0) return false;
  touch(c);
  const spans = windows(now, durationMs, tasks.length);
  let last: NodeRecord | undefined;
  for (const [i, task] of tasks.entries()) last = task(spans[i][0], spans[i][1]);
  if (fail && last) failLast(last);
  c.workers = workers;
  c.node_size = size;
  c.status = "scaling";
  c.updated_at = iso(now);
  c.op = { kind: "scale", startedAt: now, endsAt: now + durationMs, fail };
  recomputeNextAt(c);
  return true;
}

/** The fields updated in place that {@link scaleCluster} models: nodes are added, removed or resized. */
const SCALED: readonly string[] = ["workers", "node_size"] satisfies (keyof UpdateClusterRequest)[];
/** The other fields the contract declares updated in place: a PATCH sets them as given, at once. */
const SET_IN_PLACE = wireNames(CLUSTER_FIELDS, (f) => f.onChange === "update")
  .map(([, wire]) => wire)
  .filter((wire) => !SCALED.includes(wire));

/**
 * Sets what `target` changes of the fields updated in place that scaling does not model (none of
 * the documented ones; a field added to the contract's declaration); the cluster stays as it is
 * otherwise. Returns false, changing nothing, when none changes.
 */
export function setInPlace(c: ClusterRecord, target: UpdateClusterRequest, now: number): boolean {
  const record = c as unknown as Record<string, unknown>;
  const changed = SET_IN_PLACE.filter((wire) => {
    const value = (target as Record<string, unknown>)[wire];
    return value !== undefined && value !== record[wire];
  });
  if (changed.length === 0) return false;
  touch(c);
  for (const wire of changed) record[wire] = (target as Record<string, unknown>)[wire];
  c.updated_at = iso(now);
  return true;
}

/**
 * Starts a Kubernetes upgrade on a `running` cluster: `upgrading`, nodes one at a time
 * draining → not_ready → ready on the new version; the cluster's own `kubernetes_version`
 * changes when the last node is done. Returns false when already on that version.
 */
export function upgradeCluster(c: ClusterRecord, version: string, now: number, durationMs: number): boolean {
  if (version === c.kubernetes_version) return false;
  touch(c);
  const spans = windows(now, durationMs, c.nodes.length);
  c.nodes.forEach((node, i) => {
    const [s, e] = spans[i];
    schedule(node, [
      { at: s, status: "draining" },
      { at: within(s, e, 0.4), status: "not_ready" },
      { at: e, status: "ready", kubernetes_version: version },
    ]);
  });
  c.status = "upgrading";
  c.updated_at = iso(now);
  c.op = { kind: "upgrade", startedAt: now, endsAt: now + durationMs, fail: false, kubernetes_version: version };
  recomputeNextAt(c);
  return true;
}

/**
 * Starts a deletion from any status: whatever was under way is abandoned, every node drains
 * at once and the nodes are removed one by one (workers first); the cluster is gone exactly
 * when the last node is.
 */
export function startDeletion(c: ClusterRecord, now: number, durationMs: number): void {
  touch(c);
  const order = [...c.nodes.filter((n) => n.role === "worker").reverse(), ...c.nodes.filter((n) => n.role === "controlplane").reverse()];
  const spans = windows(now, durationMs, order.length);
  order.forEach((node, i) => {
    const [s, e] = spans[i];
    node.pending = undefined;
    node.status = "draining";
    schedule(node, [
      { at: within(s, e, 0.5), status: "deleting" },
      { at: e, status: "gone" },
    ]);
  });
  c.status = "deleting";
  c.updated_at = iso(now);
  c.op = { kind: "delete", startedAt: now, endsAt: now + durationMs, fail: false };
  recomputeNextAt(c);
}

/**
 * Applies every event due at `now`. Returns true when the cluster's deletion has completed,
 * i.e. it must disappear.
 */
export function settle(c: ClusterRecord, now: number): boolean {
  if (now < c.nextAt) return false;
  touch(c);
  let removed = false;
  for (const node of c.nodes) {
    const pending = node.pending;
    if (!pending) continue;
    let i = 0;
    for (; i < pending.length && pending[i].at <= now; i++) {
      const ev = pending[i];
      node.status = ev.status;
      if (ev.node_size) node.node_size = ev.node_size;
      if (ev.kubernetes_version) node.kubernetes_version = ev.kubernetes_version;
    }
    node.pending = i === pending.length ? undefined : pending.slice(i);
    if (node.status === "gone") removed = true;
  }
  if (removed) c.nodes = c.nodes.filter((n) => n.status !== "gone");
  const op = c.op;
  if (op && now >= op.endsAt) {
    if (op.kind === "delete") return true;
    c.status = op.fail ? "error" : "running";
    if (op.kubernetes_version && !op.fail) c.kubernetes_version = op.kubernetes_version;
    c.updated_at = iso(op.endsAt);
    c.op = undefined;
  }
  recomputeNextAt(c);
  return false;
}

/** ISO 8601 UTC text of an epoch-milliseconds time. */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}
