/**
 * The shape of a stored cluster record, checked on every record a state file holds before the
 * emulator starts on it: a damaged record refuses the start naming the field, instead of starting an
 * emulator whose every list answers 500. The fields of the cluster and node objects are checked as
 * the contract declares them.
 */
import Ajv, { type ErrorObject } from "ajv";
import { CLUSTER_FIELDS, type Field, NODE_FIELDS, NODE_SIZES, NODE_STATUSES, omissible, wireArguments } from "@pulumi-cms/contract";
import type { ClusterRecord } from "../model/records";

const string = { type: "string" };
const count = { type: "integer", minimum: 0 };
const nodeState = { enum: [...NODE_STATUSES, "gone"] };
const nodeSize = { enum: NODE_SIZES };

/**
 * The schema of each field a record stores, by the contract's declaration (fields.ts): its
 * documented values, else its type (a count at least 0), `null` allowed for a field the service
 * may not report; `stricter` where a record says more. Not the computed ones (`node_count`,
 * `cluster_id`) nor those answered with their declared example, which records do not hold.
 */
function storedFields(fields: Record<string, Field>, computed: string, stricter: Record<string, object>): Record<string, object> {
  const props: Record<string, object> = {};
  for (const f of Object.values(fields)) {
    if (f.wire === undefined || f.wire === computed || f.example !== undefined) continue;
    props[f.wire] =
      stricter[f.wire] ??
      (f.values !== undefined
        ? { enum: f.values }
        : f.reported === "maybe"
          ? { type: [f.type, "null"] }
          : f.type === "integer"
            ? count
            : { type: f.type });
  }
  return props;
}

const nodeFields = storedFields(NODE_FIELDS, "cluster_id", { status: nodeState });

const nodeSchema = {
  type: "object",
  required: Object.keys(nodeFields),
  properties: {
    ...nodeFields,
    pending: {
      type: "array",
      items: {
        type: "object",
        required: ["at", "status"],
        properties: { at: { type: "number" }, status: nodeState, node_size: nodeSize, kubernetes_version: string },
      },
    },
  },
};

const clusterFields = storedFields(CLUSTER_FIELDS, "node_count", {
  id: { type: "string", minLength: 1 },
  control_planes: { type: "integer", minimum: 1 },
});

const recordSchema = {
  type: "object",
  required: [...Object.keys(clusterFields), "nodes", "kubeconfig", "subnet", "workerSeq"],
  properties: {
    ...clusterFields,
    op: {
      type: "object",
      required: ["kind", "startedAt", "endsAt", "fail"],
      properties: {
        kind: { enum: ["provision", "scale", "upgrade", "delete"] },
        startedAt: { type: "number" },
        endsAt: { type: "number" },
        fail: { type: "boolean" },
        kubernetes_version: string,
      },
    },
    nodes: { type: "array", items: nodeSchema },
    // Infinity (nothing due) is written as null.
    nextAt: { type: ["number", "null"] },
    kubeconfig: {
      type: "object",
      required: ["token", "ca"],
      properties: { token: string, ca: string, caPem: string, account: string, namespace: string },
    },
    subnet: count,
    workerSeq: count,
  },
};

const validate = new Ajv({ allErrors: false, strict: true }).compile<ClusterRecord>(recordSchema);

/** `/nodes/2/status` → `nodes[2].status`. */
function fieldOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  // Never more than a short excerpt: records hold kubeconfig credentials.
  return text === undefined ? "undefined" : text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function explain(e: ErrorObject, data: unknown): string {
  if (e.keyword === "required") return `field ${fieldOf(e.instancePath, String(e.params.missingProperty))} is missing`;
  const value = e.instancePath
    .split("/")
    .slice(1)
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], data);
  if (e.instancePath === "") return `it is not a cluster record (got ${describe(value)})`;
  const field = fieldOf(e.instancePath);
  // Credentials are never quoted, not even a short excerpt.
  const got = /^kubeconfig\b/.test(field) ? "" : ` (got ${describe(value)})`;
  if (e.keyword === "enum") return `field ${field} must be one of ${(e.params.allowedValues as unknown[]).join(", ")}${got}`;
  if (e.keyword === "type") return `field ${field} must be of type ${[e.params.type].flat().join(" or ")}${got}`;
  return `field ${field} ${e.message ?? "is invalid"}${got}`;
}

/** The create's arguments it may leave out, with what a create that left one out stores. */
const OMISSIBLE = wireArguments(omissible).map(([, f]) => [f.wire, f.default ?? null] as const);

/**
 * The record, if it has the shape of a cluster record; else an Error whose message says which field
 * is wrong and how (`field nodes[2].status must be one of …`), for the caller to say where it is.
 * A record written before an argument the create may leave out was declared reads as a create
 * that left it out (it is given its default, else `null`).
 */
export function checkRecord(value: unknown): ClusterRecord | Error {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const [wire, absent] of OMISSIBLE) if (!(wire in record)) record[wire] = absent;
  }
  if (validate(value)) return value;
  const first = validate.errors?.[0];
  return new Error(first ? explain(first, value) : "it is not a cluster record");
}
