/**
 * The JSON schemas of the `/v1` routes (request validation by fastify/ajv, fast response
 * serialization) are the wire contract's (`@pulumi-cms/contract`, which the client reads answers
 * with too); here, the translation of an ajv error into a message that names the field and the rule.
 */
import { CLUSTER_FIELDS, CLUSTER_STATUSES, listed, MAX_PER_PAGE, MAX_WORKERS, NODE_SIZES, PHASES, wireNames } from "@pulumi-cms/contract";
import { ServiceError, clip } from "./errors";

/** The rule of each field, as said in validation messages. */
export const FIELD_RULES: Record<string, string> = {
  name: "must be a string of 1 to 63 characters: letters, digits and hyphens only",
  control_planes: "must be 1 or 3",
  workers: `must be an integer between 1 and ${MAX_WORKERS}`,
  node_size: `must be one of ${NODE_SIZES.join(", ")}`,
  phase: `must be one of ${PHASES.join(", ")}`,
  infra_id: "must be a string of 1 to 128 characters",
  page: "must be an integer of at least 1",
  per_page: `must be an integer between 1 and ${MAX_PER_PAGE}`,
  status: `must be one of ${CLUSTER_STATUSES.join(", ")}`,
};

/** The fields of the cluster PATCH changes (the contract's declaration: updated in place), and those that exist but it cannot change. */
const UPDATED_IN_PLACE = wireNames(CLUSTER_FIELDS, (f) => f.onChange === "update").map(([, wire]) => wire);
const IMMUTABLE = wireNames(CLUSTER_FIELDS, (f) => f.onChange !== "update").map(([, wire]) => wire);

/** The subset of an ajv error we read. */
interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  parentSchema?: { properties?: Record<string, unknown> };
}

/**
 * Turns the first ajv error into 400 `validation_failed` with a message naming the field
 * and the rule, e.g. `workers must be an integer between 1 and 100 (got 0)`.
 */
export function formatValidationError(errors: AjvError[], dataVar: string): ServiceError {
  const e = errors[0];
  const where = dataVar === "querystring" ? "query parameter" : "field";
  if (!e) return new ServiceError(400, "validation_failed", "Request is invalid");
  if (e.keyword === "additionalProperties") {
    const field = String(e.params.additionalProperty);
    if (dataVar === "querystring") {
      const allowed = Object.keys(e.parentSchema?.properties ?? {});
      return new ServiceError(
        400,
        "validation_failed",
        `Unknown query parameter "${clip(field, 40)}"; ${allowed.length ? `allowed: ${allowed.join(", ")}` : "this route takes no query parameters"}`,
      );
    }
    if (IMMUTABLE.includes(field)) {
      return new ServiceError(
        400,
        "validation_failed",
        `${field} is immutable: only ${listed(UPDATED_IN_PLACE)} can be modified after creation`,
      );
    }
    return new ServiceError(400, "validation_failed", `Unknown field "${clip(field, 40)}"`);
  }
  if (e.keyword === "required") {
    return new ServiceError(400, "validation_failed", `${String(e.params.missingProperty)} is required`);
  }
  if (e.keyword === "minProperties") {
    return new ServiceError(400, "validation_failed", `Request body must contain ${listed(UPDATED_IN_PLACE, "and/or")}`);
  }
  const field = e.instancePath.replace(/^\//, "").split("/")[0];
  if (!field) {
    return new ServiceError(400, "validation_failed", "Request body must be a JSON object");
  }
  const rule = FIELD_RULES[field] ?? `is invalid (${e.keyword})`;
  const got = e.data === undefined ? "" : ` (got ${clip(JSON.stringify(e.data), 40)})`;
  return new ServiceError(400, "validation_failed", `${where === "field" ? "" : "Query parameter "}${field} ${rule}${got}`);
}
