/**
 * Every field of a Cluster, declared once: its name on the wire, its type, when the service
 * reports it, whether the program sets it and what changing it does, whether it may be absent
 * from the outputs, and whether it is a secret. Pure data.
 *
 * The other descriptions of a Cluster are held to this one: the native schema's required lists
 * are derived from it, and test/shared/cluster-fields.test.ts compares every field of the wire
 * contract's schemas, the wire types, the camelCase types, the core's inputs and outputs, the
 * resource's arguments and outputs and the native schema against it (the types in `npm run lint`,
 * which type-checks that test). A field added or changed in one place and not here fails there.
 */

/** One field of a Cluster. */
export interface ClusterField {
  /** Its name in the API's cluster object (snake_case); absent when the cluster object has none. */
  readonly wire?: string;
  /**
   * Which answers carry it: `summary` the create's abbreviated cluster and the full one, `full` only
   * the full cluster, `maybe` none for sure (not documented as returned: absent or `null` allowed).
   */
  readonly reported?: "summary" | "full" | "maybe";
  /** Its JSON type (`object`: a nested record). */
  readonly type: "string" | "integer" | "object";
  /**
   * As an argument of the Cluster: `required`; `defaulted` optional for the program and always set
   * after check; `optional` may stay absent. Absent: not an argument.
   */
  readonly input?: "required" | "defaulted" | "optional";
  /** What a change of the argument does: `update` in place (PATCH) or `replace` the cluster. */
  readonly onChange?: "update" | "replace";
  /** As an output of the Cluster and in the lookups' results: `required`, or `optional` (may be absent). Absent: not an output. */
  readonly output?: "required" | "optional";
  /** Never stored or shown plain: `true` the whole value, `token` that member of the object. */
  readonly secret?: true | "token";
}

/** The Cluster's fields, camelCase, in the order of the outputs (`ClusterAttributes`). */
export const CLUSTER_FIELDS = {
  // The resource's id, not one of its properties; the lookups' results carry it.
  id: { wire: "id", reported: "summary", type: "string" },
  name: { wire: "name", reported: "summary", type: "string", input: "defaulted", onChange: "replace", output: "required" },
  status: { wire: "status", reported: "summary", type: "string", output: "required" },
  phase: { wire: "phase", reported: "summary", type: "string", input: "defaulted", onChange: "replace", output: "required" },
  controlPlanes: {
    wire: "control_planes",
    reported: "summary",
    type: "integer",
    input: "required",
    onChange: "replace",
    output: "required",
  },
  workers: { wire: "workers", reported: "summary", type: "integer", input: "required", onChange: "update", output: "required" },
  nodeSize: { wire: "node_size", reported: "summary", type: "string", input: "required", onChange: "update", output: "required" },
  nodeCount: { wire: "node_count", reported: "full", type: "integer", output: "optional" },
  endpoint: { wire: "endpoint", reported: "full", type: "string", output: "optional" },
  kubernetesVersion: { wire: "kubernetes_version", reported: "full", type: "string", output: "optional" },
  createdAt: { wire: "created_at", reported: "summary", type: "string", output: "optional" },
  updatedAt: { wire: "updated_at", reported: "full", type: "string", output: "optional" },
  infraId: { wire: "infra_id", reported: "maybe", type: "string", input: "optional", onChange: "replace", output: "optional" },
  // Downloaded on its own (`GET /v1/clusters/{id}/kubeconfig`), not a field of the cluster object.
  kubeconfig: { type: "string", output: "optional", secret: true },
  connection: { type: "object", input: "optional", output: "optional", secret: "token" },
} as const satisfies Record<string, ClusterField>;

/** A field's camelCase name. */
export type ClusterFieldName = keyof typeof CLUSTER_FIELDS;

/** The names of the fields for which `keep` holds, in declaration order. */
export function clusterFieldsWhere(keep: (field: ClusterField) => boolean): ClusterFieldName[] {
  return (Object.keys(CLUSTER_FIELDS) as ClusterFieldName[]).filter((name) => keep(CLUSTER_FIELDS[name]));
}
