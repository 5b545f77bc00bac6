/**
 * Every field of a Cluster and of a Node, declared once: its name on the wire, its JSON type and
 * the values the API documents, when the service reports it, whether a program sets it and what
 * changing it does, whether it may be absent from the outputs, whether it is a secret, and how
 * the outputs describe it. Pure data, and the functions that read it.
 *
 * Every other description of the two is made from this one: the answer and request schemas
 * (`contract.ts`) and the wire types (`wire-types.ts`) here; in the provider, the camelCase mapping, the core's
 * lists of what updates and what replaces, the preview's unknown outputs, the native host's input
 * picks and the native schema (so `sdk/`); in the emulator, its wire view and its record check.
 * What cannot be made at run time is generated from it (`npm run gen`: the client's answer
 * checks, the camelCase types, `sdk/`), and the provider's test/shared/domain/cluster-fields.test.ts
 * holds the hand-written types that remain to it.
 */
import { CLUSTER_STATUSES, NODE_ROLES, NODE_SIZES, NODE_STATUSES, PHASES } from "./values";

/** Where a field of a Cluster is on the wire: `summary` in the create's answer and the full cluster, `full` only in the full one, `maybe` in none for sure (absent or `null` allowed). */
export type Reported = "summary" | "full" | "maybe";

/** One field of a Cluster or of a Node. */
export interface Field {
  /** Its name in the API's object (snake_case); absent when the object has none. */
  readonly wire?: string;
  /**
   * Which answers carry it: `summary` the create's abbreviated cluster and the full one, `full` only
   * the full cluster, `maybe` none for sure (not documented as returned: absent or `null` allowed).
   * Every field of a Node is in every node object.
   */
  readonly reported?: Reported;
  /** Its JSON type (`object`: a nested record). */
  readonly type: "string" | "integer" | "object";
  /** The values the API documents for it (its value type; the answers' schemas accept others, as a tolerant reader). */
  readonly values?: readonly string[];
  /** The shape of its value (the ids). */
  readonly pattern?: string;
  /**
   * As an argument of the Cluster: `required`; `defaulted` optional for the program and always set
   * after check; `optional` may stay absent. Absent: not an argument.
   */
  readonly input?: "required" | "defaulted" | "optional";
  /** What a change of the argument does: `update` in place (PATCH) or `replace` the cluster. */
  readonly onChange?: "update" | "replace";
  /**
   * What the create and the PATCH accept of the argument beyond its JSON type and documented
   * `values`: JSON Schema keywords of its property in the request schemas (contract.ts). An
   * integer `enum` is also the type a program's argument is given.
   */
  readonly accepts?: Accepts;
  /**
   * The value the service takes when the create leaves the argument out: the create's body may
   * leave it out, and the provider writes it out in the recorded inputs. An argument `defaulted`
   * without one is defaulted by the provider (the name) and required on the wire.
   */
  readonly default?: string | number;
  /** As an output of the Cluster and in the lookups' results: `required`, or `optional` (may be absent). Absent: not an output. */
  readonly output?: "required" | "optional";
  /** Never stored or shown plain: `true` the whole value, `token` that member of the object. */
  readonly secret?: true | "token";
  /**
   * What the emulator answers for a field on the wire that it does not model (no record field
   * holds it): a field added to this declaration is answered at once, and state files written
   * before it still load. A field without one is stored in the emulator's records.
   */
  readonly example?: string | number;
  /** What it is, as the outputs and the lookups' results describe it. */
  readonly description: string;
  /** What it is as an argument, when that says more (its default, what changing it does). */
  readonly argument?: string;
}

/** JSON Schema keywords a request property may carry beyond its type (see {@link Field.accepts}). */
export interface Accepts {
  readonly enum?: readonly number[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

const oneOf = (values: readonly string[]) => values.join(", ");

/** `a, b and c`, with `and` or another last conjunction: a list of fields or values in a sentence. */
export function listed(words: readonly string[], conjunction = "and"): string {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} ${conjunction} ${words[words.length - 1]}`;
}

/** Upper bound on workers: the emulator's (the documentation sets none); keeps a request from allocating unbounded nodes. */
export const MAX_WORKERS = 100;

/**
 * A cluster id: `cls_` and then letters, digits, `_` or `-` (the documentation says `cls_<id>`;
 * the emulator's are 16 lowercase hex characters). Nothing else may go into a path.
 */
export const CLUSTER_ID_PATTERN = "^cls_[A-Za-z0-9_-]{1,128}$";
/** A node id: `node_` and then letters, digits, `_` or `-`. */
export const NODE_ID_PATTERN = "^node_[A-Za-z0-9_-]{1,128}$";

/** The Cluster's fields, camelCase, in the order of the outputs. */
export const CLUSTER_FIELDS = {
  // The resource's id, not one of its properties; the lookups' results carry it.
  id: { wire: "id", reported: "summary", type: "string", pattern: CLUSTER_ID_PATTERN, description: "Cluster id, `cls_...`." },
  name: {
    wire: "name",
    reported: "summary",
    type: "string",
    input: "defaulted",
    onChange: "replace",
    accepts: { minLength: 1, maxLength: 63, pattern: "^[A-Za-z0-9-]+$" },
    output: "required",
    description: "Cluster name.",
    argument:
      "Cluster name: letters, digits and hyphens, 1-63 characters. Default: the resource name, `-` and 7 characters derived from the resource and a seed the provider keeps in the stack's state (the same across runs). Changing it replaces the cluster.",
  },
  status: {
    wire: "status",
    reported: "summary",
    type: "string",
    values: CLUSTER_STATUSES,
    output: "required",
    description: `Status as last seen: ${oneOf(CLUSTER_STATUSES)}.`,
  },
  phase: {
    wire: "phase",
    reported: "summary",
    type: "string",
    values: PHASES,
    input: "defaulted",
    onChange: "replace",
    default: "managed",
    output: "required",
    description: `Where the cluster runs: ${oneOf(PHASES)}.`,
    argument: `Where the cluster runs: ${oneOf(PHASES)}; default \`managed\`. Changing it replaces the cluster.`,
  },
  controlPlanes: {
    wire: "control_planes",
    reported: "summary",
    type: "integer",
    input: "required",
    onChange: "replace",
    accepts: { enum: [1, 3] },
    output: "required",
    description: "Number of control planes (1 or 3).",
    argument: "Number of control planes: 1 or 3. Changing it replaces the cluster.",
  },
  workers: {
    wire: "workers",
    reported: "summary",
    type: "integer",
    input: "required",
    onChange: "update",
    accepts: { minimum: 1, maximum: MAX_WORKERS },
    output: "required",
    description: "Number of workers (as the service reports them, after a refresh).",
    argument: "Number of workers, at least 1. Updated in place.",
  },
  nodeSize: {
    wire: "node_size",
    reported: "summary",
    type: "string",
    values: NODE_SIZES,
    input: "required",
    onChange: "update",
    output: "required",
    description: `Size of every node: ${oneOf(NODE_SIZES)}.`,
    argument: `Size of every node: ${oneOf(NODE_SIZES)}. Updated in place.`,
  },
  nodeCount: { wire: "node_count", reported: "full", type: "integer", output: "optional", description: "Total node count." },
  endpoint: {
    wire: "endpoint",
    reported: "full",
    type: "string",
    output: "optional",
    description: "Kubernetes API server URL, `https://<host>:<port>`.",
  },
  kubernetesVersion: {
    wire: "kubernetes_version",
    reported: "full",
    type: "string",
    output: "optional",
    description: "Kubernetes version, `v<major>.<minor>.<patch>`.",
  },
  createdAt: { wire: "created_at", reported: "summary", type: "string", output: "optional", description: "Creation time, ISO 8601 UTC." },
  updatedAt: { wire: "updated_at", reported: "full", type: "string", output: "optional", description: "Last change, ISO 8601 UTC." },
  infraId: {
    wire: "infra_id",
    reported: "maybe",
    type: "string",
    input: "optional",
    onChange: "replace",
    accepts: { minLength: 1, maxLength: 128 },
    output: "optional",
    description: "Target infrastructure.",
    argument: "Target infrastructure; required when `phase` is not `managed`. Changing it replaces the cluster.",
  },
  // Downloaded on its own (`GET /v1/clusters/{id}/kubeconfig`), not a field of the cluster object.
  kubeconfig: { type: "string", output: "optional", secret: true, description: "Admin kubeconfig of the cluster (YAML)." },
  connection: {
    type: "object",
    input: "optional",
    output: "optional",
    secret: "token",
    description: "Explicit endpoint and token for this cluster.",
  },
} as const satisfies Record<string, Field>;

/** A Node's fields, camelCase, in the order of the node object. Every one is on the wire, in every node object. */
export const NODE_FIELDS = {
  id: { wire: "id", type: "string", pattern: NODE_ID_PATTERN, description: "Node id, `node_...`." },
  clusterId: { wire: "cluster_id", type: "string", pattern: CLUSTER_ID_PATTERN, description: "Id of the parent cluster." },
  name: { wire: "name", type: "string", description: "Node name." },
  role: { wire: "role", type: "string", values: NODE_ROLES, description: "Role: controlplane or worker." },
  status: { wire: "status", type: "string", values: NODE_STATUSES, description: `Status: ${oneOf(NODE_STATUSES)}.` },
  nodeSize: { wire: "node_size", type: "string", values: NODE_SIZES, description: "Node size." },
  ipAddress: { wire: "ip_address", type: "string", description: "Internal IP address." },
  kubernetesVersion: { wire: "kubernetes_version", type: "string", description: "Kubernetes version of the node." },
  talosVersion: { wire: "talos_version", type: "string", description: "Version of the node operating system." },
  createdAt: { wire: "created_at", type: "string", description: "Creation time, ISO 8601." },
} as const satisfies Record<string, Field & { wire: string }>;

/** The Cluster's declaration. */
export type ClusterFields = typeof CLUSTER_FIELDS;
/** The Node's declaration. */
export type NodeFields = typeof NODE_FIELDS;
/** A field's camelCase name. */
export type ClusterFieldName = keyof ClusterFields;

/** The names of the fields of `F` whose declaration has `P` (`FieldsWhere<ClusterFields, { onChange: "update" }>`). */
export type FieldsWhere<F, P> = { [K in keyof F]: F[K] extends P ? K : never }[keyof F];

/** The names of the fields of `fields` for which `keep` holds, in declaration order. */
export function fieldsWhere<F extends Record<string, Field>, K extends keyof F & string = keyof F & string>(
  fields: F,
  keep: (field: Field) => boolean,
): K[] {
  return (Object.keys(fields) as K[]).filter((name) => keep(fields[name]));
}

/** The names of the Cluster's fields for which `keep` holds, in declaration order. */
export function clusterFieldsWhere(keep: (field: Field) => boolean): ClusterFieldName[] {
  return fieldsWhere(CLUSTER_FIELDS, keep);
}

const ARGUMENT_RANK = { required: 1, defaulted: 2, optional: 3 } as const;

/**
 * The names of the Cluster's arguments for which `keep` holds, in the order a program writes them
 * (the order of the schema's inputs, of diff's lists and of the create's body): the name, then the
 * required ones, the defaulted ones and the optional ones, each in declaration order.
 */
export function clusterArguments(keep: (field: Field) => boolean = () => true): ClusterFieldName[] {
  const rank = (name: ClusterFieldName) => {
    const input = (CLUSTER_FIELDS[name] as Field).input;
    return name === "name" || input === undefined ? 0 : ARGUMENT_RANK[input];
  };
  return clusterFieldsWhere((f) => f.input !== undefined && keep(f)).sort((a, b) => rank(a) - rank(b));
}

/** The wire names of the fields of `F` that the emulator answers with their declared example, not from its records. */
export type ExampleWireNames<F> = WireNameOf<F, FieldsWhere<F, { example: string | number }>>;

/** The wire names of the fields `K` of `F` (none for a field off the wire). */
export type WireNameOf<F, K extends keyof F> = K extends K ? (F[K] extends { wire: infer W extends string } ? W : never) : never;

/** A field's value type: one of its documented values, a string, a number or an object. */
export type ValueOf<D> = D extends { values: readonly (infer V)[] }
  ? V
  : D extends { type: "string" }
    ? string
    : D extends { type: "integer" }
      ? number
      : Record<string, unknown>;

/** The fields of `F` that have `P` and a wire name, under that name; a field the service may not return (`maybe`) also `null`. */
type WireValues<F, P> = {
  [K in FieldsWhere<F, P & { wire: string }> as WireNameOf<F, K>]: F[K] extends { reported: "maybe" }
    ? ValueOf<F[K]> | null
    : ValueOf<F[K]>;
};
/** The wire names of the fields of `F` that the service may not return. */
type MaybeWireNames<F> = WireNameOf<F, FieldsWhere<F, { reported: "maybe" }>>;

/**
 * The wire object of the fields of `F` that have `P`, under their wire names: `reported: "maybe"`
 * ones optional and nullable, the others required.
 */
export type WireObject<F, P = unknown> = Omit<WireValues<F, P>, MaybeWireNames<F>> &
  Partial<Pick<WireValues<F, P>, MaybeWireNames<F> & keyof WireValues<F, P>>>;

/** The arguments of `F` on the wire that have `P`, under their wire names, with their value types. */
type ArgumentValues<F, P> = { [K in FieldsWhere<F, P & { input: string; wire: string }> as WireNameOf<F, K>]: ValueOf<F[K]> };
/** The wire names of the arguments of `F` the create may leave out ({@link omissible}). */
export type OmissibleWireNames<F> = WireNameOf<F, FieldsWhere<F, { input: "optional" } | { default: string | number }>>;

/** The create's body made of `F`: every argument on the wire, under its wire name, those it may leave out optional. */
export type CreateObject<F> = Omit<ArgumentValues<F, unknown>, OmissibleWireNames<F>> &
  Partial<Pick<ArgumentValues<F, unknown>, OmissibleWireNames<F> & keyof ArgumentValues<F, unknown>>>;
/** The PATCH's body made of `F`: the arguments updated in place, each optional. */
export type UpdateObject<F> = Partial<ArgumentValues<F, { onChange: "update" }>>;

/** True for an argument the create may leave out: an optional one, or one the service defaults. */
export function omissible(field: Field): boolean {
  return field.input === "optional" || field.default !== undefined;
}

/** The Cluster's arguments on the wire for which `keep` holds, in the order a program writes them, with their declarations. */
export function wireArguments(keep: (field: Field) => boolean = () => true): [camel: ClusterFieldName, field: Field & { wire: string }][] {
  return clusterArguments((f) => f.wire !== undefined && keep(f)).map((name) => [name, CLUSTER_FIELDS[name] as Field & { wire: string }]);
}

/** The wire names of `fields`' fields that have one, in declaration order, with their camelCase names. */
export function wireNames(fields: Record<string, Field>, keep: (field: Field) => boolean = () => true): [camel: string, wire: string][] {
  return Object.entries(fields).flatMap(([camel, f]) => (f.wire !== undefined && keep(f) ? [[camel, f.wire] as [string, string]] : []));
}

/**
 * The wire object (`c`, snake_case) in camelCase, `null` as absent: the fields of `fields` on the
 * wire, in declaration order.
 */
export function fromWire(fields: Record<string, Field>, c: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [camel, wire] of wireNames(fields)) {
    const value = (c as Record<string, unknown>)[wire];
    if (value !== undefined && value !== null) out[camel] = value;
  }
  return out;
}

/** True when `value` is of the field's JSON type. */
export function isOfType(field: Field, value: unknown): boolean {
  return field.type === "integer"
    ? Number.isInteger(value)
    : field.type === "object"
      ? typeof value === "object" && value !== null
      : typeof value === field.type;
}
