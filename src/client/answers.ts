/**
 * Every answer the client reads is checked against the wire contract (`@pulumi-cms/contract`)
 * before anything uses it; a broken one becomes a {@link ContractError} naming the request, the
 * field and what came, e.g. `CMS API POST /v1/clusters answered 201 with no "id"`. Ids are
 * checked the same way before they go into a path.
 */
import type { ErrorObject } from "ajv";
import type * as Yaml from "yaml";
import { CLUSTER_ID_PATTERN, ID_RULES, KUBECONFIG_SERVER_PATTERN, isClusterId, isNodeId } from "@pulumi-cms/contract";
import * as compiled from "../generated/answer-validators";
import { ContractError, InvalidIdError } from "./errors";
import { redact } from "./redact";

/** A check of one shape, as Ajv compiles it: `errors` says what failed the last call. */
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

// The contract's schemas compiled ahead of time (scripts/gen-answer-validators.mjs): a process
// reads its first answer without loading Ajv's compiler or compiling a schema.
const SHAPES = {
  clusterSummary: { validate: compiled.clusterSummary as Validate, what: "a cluster" },
  cluster: { validate: compiled.cluster as Validate, what: "a cluster" },
  clusterList: { validate: compiled.clusterList as Validate, what: "a cluster list" },
  node: { validate: compiled.node as Validate, what: "a node" },
  nodeList: { validate: compiled.nodeList as Validate, what: "a node list" },
  kubeconfig: { validate: compiled.kubeconfig as Validate, what: "a kubeconfig" },
} as const;

/** What an answer should be. */
export type AnswerShape = keyof typeof SHAPES;

/** Where an answer came from, for its error; `secrets` never appear in a message. */
export interface AnswerSource {
  method: string;
  /** Path including `/v1`. */
  path: string;
  status: number;
  secrets: readonly string[];
}

/** `value`, when it has the contract's shape; else a {@link ContractError} saying what is wrong. */
export function checkAnswer<T>(shape: AnswerShape, value: unknown, from: AnswerSource): T {
  const { validate } = SHAPES[shape];
  if (validate(value)) return value as T;
  const e = validate.errors?.[0];
  if (!e) throw brokenAnswer(from, `a body that is not ${SHAPES[shape].what}`);
  throw brokenAnswer(from, ...explain(e, value, SHAPES[shape].what, from.secrets));
}

/**
 * The kubeconfig's text, as sent, once it parses as YAML into a kubeconfig (`kubeconfigSchema`):
 * else a {@link ContractError} naming the field, so that an HTML page answered with 200 never
 * becomes the cluster's kubeconfig. No value of a broken kubeconfig is quoted (it may still hold
 * credentials), but for a body that is a line of text (such as that page), which is.
 */
export function checkKubeconfig(body: string, from: AnswerSource): string {
  if (body.trim() === "") throw brokenAnswer(from, "an empty body where the contract has a kubeconfig");
  let doc: unknown;
  try {
    // Loaded on the first kubeconfig: a command that downloads none never loads the YAML parser.
    doc = (require("yaml") as typeof Yaml).parse(body);
  } catch {
    throw brokenAnswer(from, "a body that is not YAML where the contract has a kubeconfig");
  }
  if (typeof doc === "string") throw brokenAnswer(from, `a body that is not a kubeconfig (${quote(body, from.secrets)})`);
  const { validate } = SHAPES.kubeconfig;
  if (validate(doc)) return body;
  const e = validate.errors?.[0];
  if (!e) throw brokenAnswer(from, "a body that is not a kubeconfig");
  throw brokenAnswer(from, ...explain(e, undefined, "a kubeconfig", from.secrets));
}

/**
 * The body of an answer, parsed and checked against the contract. `endpoint` is named when the
 * body is not JSON at all: the endpoint is then likely not a Cluster Management Service.
 */
export function parseAnswer<T>(shape: AnswerShape, body: string, from: AnswerSource, endpoint: string): T {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw brokenAnswer(
      from,
      `a body that is not JSON (${quote(body, from.secrets)}); is the endpoint (${endpoint}) a Cluster Management Service?`,
    );
  }
  return checkAnswer<T>(shape, value, from);
}

/** Nothing, when the answer's `field` is what was asked for; else the answer is about another `kind` and broken. */
export function sameField(field: string, got: string, asked: string, kind: string, from: AnswerSource): void {
  if (got === asked) return;
  const with_ = `"${field}" ${quote(got, from.secrets)} where ${quote(asked, from.secrets)} was asked for: another ${kind}`;
  throw brokenAnswer(from, with_, field);
}

/** The error for an answer that breaks the contract: `with` says how (`no "id"`). */
export function brokenAnswer(from: AnswerSource, with_: string, field?: string): ContractError {
  return new ContractError({
    status: from.status,
    method: from.method,
    path: from.path,
    field,
    message: redact(`CMS API ${from.method} ${from.path} answered ${from.status} with ${with_}`, from.secrets),
  });
}

/** A value quoted in a message: secrets out first, then at most 40 characters. */
export function quote(value: unknown, secrets: readonly string[]): string {
  const text = typeof value === "string" ? JSON.stringify(redact(value, secrets)) : redact(JSON.stringify(value) ?? "undefined", secrets);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** `/items/3/id` → `items[3].id`. */
function fieldOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/** What is wrong, and the field; `data` undefined: the values are not quoted. */
function explain(e: ErrorObject, data: unknown, what: string, secrets: readonly string[]): [string, string?] {
  if (e.keyword === "required") {
    const field = fieldOf(e.instancePath, String(e.params.missingProperty));
    return [`no "${field}"`, field];
  }
  const value = e.instancePath
    .split("/")
    .slice(1)
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], data);
  if (e.instancePath === "") return [`a body that is not ${what}${data === undefined ? "" : ` (got ${quote(value, secrets)})`}`];
  const field = fieldOf(e.instancePath);
  const got = data === undefined ? `"${field}"` : `"${field}" ${quote(value, secrets)}`;
  if (e.keyword === "minItems") return [`an empty "${field}"`, field];
  if (e.keyword === "pattern" && e.params.pattern === KUBECONFIG_SERVER_PATTERN) {
    return [`${got}, which is not a server URL (http:// or https:// and a host)`, field];
  }
  if (e.keyword === "pattern") {
    const kind = e.params.pattern === CLUSTER_ID_PATTERN ? "cluster" : "node";
    return [`${got}, which is not a ${kind} id (${ID_RULES[kind]})`, field];
  }
  if (e.keyword === "type") return [`${got} where the contract has ${article([e.params.type].flat().join(" or "))}`, field];
  return [`${got}, which ${e.message ?? "breaks the contract"}`, field];
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * The id as a path segment, after checking its shape: an id of another shape is refused before
 * anything is sent ({@link InvalidIdError}), so no id can steer a path elsewhere.
 */
export function idSegment(kind: "cluster" | "node", id: unknown, request: string, secrets: readonly string[]): string {
  if (kind === "cluster" ? isClusterId(id) : isNodeId(id)) return encodeURIComponent(id as string);
  throw new InvalidIdError(`CMS API ${request}: ${quote(id, secrets)} is not a ${kind} id (${ID_RULES[kind]}), so nothing was sent`, kind);
}
