/**
 * The wire view of the records: the cluster, summary and node objects the API answers with, made
 * from the declaration of their fields in `@pulumi-cms/contract`.
 */
import { type ApiCluster, type ApiClusterSummary, type ApiNode, CLUSTER_FIELDS, type Field, NODE_FIELDS } from "@pulumi-cms/contract";
import { type ClusterRecord, type NodeRecord, revisionOf } from "../model/records";

/**
 * Serialized full-object JSON of each cluster, reused by list pages until the cluster changes
 * ({@link touch} of model/records.ts). A WeakMap keeps it out of the persisted records.
 */
const jsonCache = new WeakMap<ClusterRecord, { revision: number; text: string }>();

/** The full cluster object as JSON text (cached until the cluster changes). */
export function clusterJson(c: ClusterRecord): string {
  const revision = revisionOf(c);
  let cached = jsonCache.get(c);
  if (cached === undefined || cached.revision !== revision) {
    cached = { revision, text: JSON.stringify(toApiCluster(c)) };
    jsonCache.set(c, cached);
  }
  return cached.text;
}

/** A field of the wire view: its wire name and how a record gives its value. */
type WireField<R> = readonly [wire: string, value: (record: R, cluster: ClusterRecord) => unknown];

/** What the records do not hold as such: the node count, and a node's cluster id. */
const COMPUTED: Record<string, (record: never, cluster: ClusterRecord) => unknown> = {
  node_count: (_c: ClusterRecord, cluster: ClusterRecord) => cluster.nodes.length,
  cluster_id: (_n: NodeRecord, cluster: ClusterRecord) => cluster.id,
};

/**
 * The wire view of `fields` for which `keep` holds, in declaration order: each from the record
 * field of its wire name, computed ({@link COMPUTED}), or, for a field the emulator does not
 * model, its declared example.
 */
function wireFields<R>(fields: Record<string, Field>, keep: (field: Field) => boolean): WireField<R>[] {
  return Object.values(fields).flatMap((f): WireField<R>[] => {
    if (f.wire === undefined || !keep(f)) return [];
    const wire = f.wire;
    const computed = COMPUTED[wire] as WireField<R>[1] | undefined;
    if (computed) return [[wire, computed]];
    if (f.example !== undefined) return [[wire, () => f.example]];
    return [[wire, (record) => (record as Record<string, unknown>)[wire]]];
  });
}

const FULL = wireFields<ClusterRecord>(CLUSTER_FIELDS, (f) => f.reported !== undefined);
const SUMMARY = wireFields<ClusterRecord>(CLUSTER_FIELDS, (f) => f.reported === "summary");
const NODE = wireFields<NodeRecord>(NODE_FIELDS, () => true);

function render<R>(view: readonly WireField<R>[], record: R, cluster: ClusterRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [wire, value] of view) out[wire] = value(record, cluster);
  return out;
}

/** The full cluster object (GET, list items, PATCH response): every field of the contract's declaration on the wire. */
export function toApiCluster(c: ClusterRecord): ApiCluster {
  return render(FULL, c, c) as unknown as ApiCluster;
}

/** The abbreviated cluster object returned by create: the fields declared `reported: "summary"`. */
export function toSummary(c: ClusterRecord): ApiClusterSummary {
  return render(SUMMARY, c, c) as unknown as ApiClusterSummary;
}

/** The node object (a record's status is one of the wire's once settled). */
export function toApiNode(c: ClusterRecord, n: NodeRecord): ApiNode {
  return render(NODE, n, c) as unknown as ApiNode;
}
