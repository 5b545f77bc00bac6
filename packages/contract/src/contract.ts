/**
 * The wire contract of the service's v1 API as JSON schemas, the one place that says what every
 * request and answer holds: the documented fields and values, plus what docs/api-contract.md
 * decides where the documentation is silent. The emulator checks what it receives against the
 * request schemas and answers through the answer schemas; the client checks every answer it
 * reads against the answer schemas before using it.
 *
 * The answer schemas are a tolerant reader's: a field the service adds is accepted, and so is a
 * status, phase or size this version does not know (a string all the same); a documented field
 * that is missing or of another type, or an id of another shape, is a broken answer.
 */
import {
  CLUSTER_FIELDS,
  CLUSTER_ID_PATTERN,
  type Field,
  NODE_FIELDS,
  NODE_ID_PATTERN,
  omissible,
  wireArguments,
  wireNames,
} from "./fields";
import { CLUSTER_STATUSES } from "./values";
import { MAX_PER_PAGE } from "./wire-types";

const CLUSTER_ID = new RegExp(CLUSTER_ID_PATTERN);
const NODE_ID = new RegExp(NODE_ID_PATTERN);

/** True for a string of the cluster id's shape ({@link CLUSTER_ID_PATTERN}). */
export function isClusterId(value: unknown): value is string {
  return typeof value === "string" && CLUSTER_ID.test(value);
}

/** True for a string of the node id's shape ({@link NODE_ID_PATTERN}). */
export function isNodeId(value: unknown): value is string {
  return typeof value === "string" && NODE_ID.test(value);
}

/** The shape of each id, as messages say it. */
export const ID_RULES = {
  cluster: "cls_ followed by 1 to 128 letters, digits, _ or -",
  node: "node_ followed by 1 to 128 letters, digits, _ or -",
} as const;

// ------------------------------------------------------------------------------------ requests

/**
 * The request schema of each argument on the wire for which `keep` holds, under its wire name, in
 * the order a program writes them: its type, its documented values and what else it `accepts`.
 */
function argumentProps(keep: (field: Field) => boolean): Record<string, object> {
  const props: Record<string, object> = {};
  for (const [, f] of wireArguments(keep)) props[f.wire] = { type: f.type, ...(f.values ? { enum: f.values } : {}), ...f.accepts };
  return props;
}

/** `POST /v1/clusters` body: every argument on the wire; required but those the create may leave out. */
export const createBody = {
  type: "object",
  required: wireArguments((f) => !omissible(f)).map(([, f]) => f.wire),
  additionalProperties: false,
  properties: argumentProps(() => true),
};

/** `PATCH /v1/clusters/{id}` body: the arguments updated in place (`workers` and `node_size`), at least one. */
export const updateBody = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: argumentProps((f) => f.onChange === "update"),
};

/** `GET /v1/clusters` query. */
export const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    // Query values are strings; patterns keep the check strict (no "1.5", "01e2", "-1").
    page: { type: "string", pattern: "^[1-9][0-9]{0,8}$" },
    per_page: { type: "string", pattern: `^([1-9]|[1-9][0-9]|${MAX_PER_PAGE})$` },
    status: { type: "string", enum: CLUSTER_STATUSES },
  },
};

/** Routes other than the list take no query parameters. */
export const noQuery = { type: "object", additionalProperties: false, properties: {} };

// ------------------------------------------------------------------------------------- answers

const text = { type: "string" };
const count = { type: "integer", minimum: 0 };

/**
 * The answers' schema of each field on the wire of `fields` for which `keep` holds, under its
 * wire name, in declaration order (fields.ts): an id its pattern, a count at least 0, a field the
 * service may not return also `null`.
 */
function wireProps(fields: Record<string, Field>, keep: (field: Field) => boolean): Record<string, object> {
  const props: Record<string, object> = {};
  for (const f of Object.values(fields)) {
    if (f.wire === undefined || !keep(f)) continue;
    props[f.wire] =
      f.reported === "maybe"
        ? { type: [f.type, "null"] }
        : f.pattern !== undefined
          ? { type: f.type, pattern: f.pattern }
          : f.type === "integer"
            ? count
            : text;
  }
  return props;
}

const summaryProps = wireProps(CLUSTER_FIELDS, (f) => f.reported === "summary");

/** The create's answer (201): the abbreviated cluster. */
export const clusterSummarySchema = {
  type: "object",
  required: Object.keys(summaryProps),
  properties: summaryProps,
};

// Whether the service returns a `maybe` field (infra_id) is not documented: optional, `null` when none was given.
const clusterProps = { ...summaryProps, ...wireProps(CLUSTER_FIELDS, (f) => f.reported !== undefined && f.reported !== "summary") };

const MAYBE = wireNames(CLUSTER_FIELDS, (f) => f.reported === "maybe").map(([, wire]) => wire);

/** The full cluster: `GET /v1/clusters/{id}`, list items, the PATCH answer. */
export const clusterSchema = {
  type: "object",
  required: Object.keys(clusterProps).filter((k) => !MAYBE.includes(k)),
  properties: clusterProps,
};

/** `GET /v1/clusters`: `total`, `page` and `per_page` may be missing (see docs/api-contract.md, Listings). */
export const clusterListSchema = {
  type: "object",
  required: ["items"],
  properties: {
    items: { type: "array", items: clusterSchema },
    total: count,
    page: { type: "integer", minimum: 1 },
    per_page: { type: "integer", minimum: 1 },
  },
};

const nodeProps = wireProps(NODE_FIELDS, () => true);

/** `GET /v1/clusters/{id}/nodes/{node_id}` and the items of the node list. */
export const nodeSchema = {
  type: "object",
  required: Object.keys(nodeProps),
  properties: nodeProps,
};

/** `GET /v1/clusters/{id}/nodes`. */
export const nodeListSchema = {
  type: "object",
  required: ["items"],
  properties: { items: { type: "array", items: nodeSchema }, total: count },
};

// ---------------------------------------------------------------------------------- kubeconfig

/** A kubeconfig cluster's `server`: an `http://` or `https://` URL with a host. */
export const KUBECONFIG_SERVER_PATTERN = "^https?://[^\\s/?#@]+";

const named = (member: string, schema: object) => ({
  type: "object",
  required: ["name", member],
  properties: { name: { type: "string", minLength: 1 }, [member]: schema },
});

/**
 * `GET /v1/clusters/{id}/kubeconfig`, once its YAML is parsed: at least one cluster with a server
 * URL, one user and one context naming a cluster and a user. What else a kubeconfig may hold
 * (the CA, the user's credentials, `current-context`, preferences) is the Kubernetes client's.
 */
export const kubeconfigSchema = {
  type: "object",
  required: ["clusters", "users", "contexts"],
  properties: {
    clusters: {
      type: "array",
      minItems: 1,
      items: named("cluster", {
        type: "object",
        required: ["server"],
        properties: { server: { type: "string", pattern: KUBECONFIG_SERVER_PATTERN } },
      }),
    },
    users: { type: "array", minItems: 1, items: named("user", { type: "object" }) },
    contexts: {
      type: "array",
      minItems: 1,
      items: named("context", { type: "object", required: ["cluster", "user"], properties: { cluster: text, user: text } }),
    },
    "current-context": text,
  },
};
