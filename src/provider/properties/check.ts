/**
 * `check`: validate every input against the API's rules before any call is made, and fill in
 * defaults (phase, auto-name). Pure: no I/O, so every rule is unit-tested directly.
 */
import { CLUSTER_FIELDS, ID_RULES, isClusterId, NODE_SIZES, omitUndefinedDeep, PHASES } from "@pulumi-cms/contract";
import { autoName, derivedAutoName, nameProblem, resourceNameFromUrn, SEED_PATTERN } from "../naming/auto-name";
import { validateTimeouts } from "./timeouts";
import { isUnknown } from "./unknown";

/** One failed rule, in the shape the Pulumi engine prints ("property: reason"). */
export interface CheckFailure {
  /** The input property (or `customTimeouts.<operation>`, `connection.<field>`). */
  property: string;
  /** The rule it breaks and the value given (never a token). */
  reason: string;
}

/** Result of {@link checkCluster}. */
export interface CheckClusterResult {
  /** The inputs with defaults filled in; what diff, create and update will receive. */
  inputs: Record<string, unknown>;
  /** Every rule the inputs break, one entry per problem. Empty when valid. */
  failures: CheckFailure[];
}

/** Options of {@link checkCluster}. */
export interface CheckOptions {
  /** Random integer in [0, max) for the auto-name of inputs without a URN; injectable for tests. */
  random?: (max: number) => number;
  /**
   * Auto-name generation of a new name (see `../naming/auto-name.ts`): 0 for a first create, the next one for
   * a replacement that needs a fresh name. Default 0.
   */
  generation?: number;
  /** URN of the resource, from which the auto-name derives. */
  urn?: string;
  /** The stack's auto-name seed (see `../naming/auto-name.ts`), recorded with an auto-named cluster. */
  seed?: unknown;
  /** The resource's `customTimeouts`, as given. */
  timeouts?: unknown;
  /** The id given with the `import` resource option. */
  importId?: unknown;
}

/** Default phase when the program leaves it out: the API's, as the fields' declaration says. */
const DEFAULT_PHASE = CLUSTER_FIELDS.phase.default;

/**
 * Validate and complete Cluster inputs.
 *
 * - Values that are unknown during a preview are not judged (they are checked again at `up`).
 * - Without a `name`, the cluster is auto-named from its URN, the stack's seed and
 *   `options.generation`; a previous auto-name (from `olds`) is kept, so repeated previews and
 *   updates see the same name. An unknown seed (a brand-new stack's preview) leaves it unknown.
 * - `phase` defaults to `managed`; `infraId` is required for any other phase.
 *
 * @param olds the previous inputs (empty on first create and on a replacement's re-check)
 * @param news the program's inputs
 */
export function checkCluster(
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  options: CheckOptions = {},
): CheckClusterResult {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string) => failures.push({ property, reason });
  const inputs: Record<string, unknown> = { ...news };
  const old = olds ?? {};

  // name: explicit, or auto-generated once and then kept.
  if (news.name === undefined || news.name === null) {
    const previous = old.__autonamed === true ? old.name : undefined;
    const seed = options.seed;
    if (seed !== undefined && seed !== null && !isUnknown(seed) && (typeof seed !== "string" || !SEED_PATTERN.test(seed))) {
      fail("name", "the stack's auto-name seed (hidden input __seed) is damaged: it must be 32 hex digits");
    }
    inputs.name =
      typeof previous === "string" && nameProblem(previous) === undefined
        ? previous
        : typeof options.urn === "string" && resourceNameFromUrn(options.urn) !== undefined
          ? // The seed is not recorded yet during a brand-new stack's first preview: so is the name.
            isUnknown(seed)
            ? seed
            : derivedAutoName(options.urn, options.generation ?? 0, typeof seed === "string" ? seed : undefined)
          : autoName("cluster", options.random);
    inputs.__autonamed = true;
    if (seed !== undefined) inputs.__seed = seed;
  } else {
    delete inputs.__seed;
    delete inputs.__autonamed;
    if (!isUnknown(news.name)) {
      const problem = nameProblem(news.name);
      if (problem) fail("name", problem);
    }
  }

  // controlPlanes: 1 or 3.
  const cp = news.controlPlanes;
  if (cp === undefined || cp === null) fail("controlPlanes", "controlPlanes is required: 1 or 3");
  else if (!isUnknown(cp) && cp !== 1 && cp !== 3) {
    fail("controlPlanes", `controlPlanes must be 1 or 3, got ${show(cp)}`);
  }

  // workers: an integer, at least 1.
  const workers = news.workers;
  if (workers === undefined || workers === null) fail("workers", "workers is required: an integer of at least 1");
  else if (!isUnknown(workers) && !(typeof workers === "number" && Number.isInteger(workers) && workers >= 1)) {
    fail("workers", `workers must be an integer of at least 1, got ${show(workers)}`);
  }

  // nodeSize: one of the listed sizes.
  const size = news.nodeSize;
  if (size === undefined || size === null) fail("nodeSize", `nodeSize is required: one of ${NODE_SIZES.join(", ")}`);
  else if (!isUnknown(size) && !(NODE_SIZES as readonly unknown[]).includes(size)) {
    fail("nodeSize", `nodeSize must be one of ${NODE_SIZES.join(", ")}, got ${show(size)}`);
  }

  // phase: defaults to managed.
  if (news.phase === undefined || news.phase === null) inputs.phase = DEFAULT_PHASE;
  else if (!isUnknown(news.phase) && !(PHASES as readonly unknown[]).includes(news.phase)) {
    fail("phase", `phase must be one of ${PHASES.join(", ")}, got ${show(news.phase)}`);
  }
  const phase = inputs.phase;

  // infraId: required unless the phase is managed.
  const infraId = news.infraId;
  const infraMissing = infraId === undefined || infraId === null || infraId === "";
  if (infraMissing) {
    delete inputs.infraId;
    if (typeof phase === "string" && phase !== DEFAULT_PHASE && (PHASES as readonly string[]).includes(phase)) {
      fail("infraId", `infraId is required when phase is "${phase}" (only "managed" clusters may omit it)`);
    }
  } else if (!isUnknown(infraId) && typeof infraId !== "string") {
    fail("infraId", `infraId must be a string, got ${show(infraId)}`);
  }

  // connection: optional explicit endpoint and token.
  checkConnection(news.connection, fail);

  // The customTimeouts and import resource options.
  for (const p of validateTimeouts(options.timeouts)) fail(p.property, p.reason);
  const importId = options.importId;
  if (importId !== undefined && importId !== null && !isUnknown(importId)) {
    if (!isClusterId(importId)) {
      fail("import", `the import option must be the id of an existing cluster (${ID_RULES.cluster}), got ${show(importId)}`);
    }
  }

  return { inputs: omitUndefinedDeep(inputs), failures };
}

function checkConnection(connection: unknown, fail: (property: string, reason: string) => void): void {
  if (connection === undefined || connection === null || isUnknown(connection)) return;
  if (typeof connection !== "object" || Array.isArray(connection)) {
    fail("connection", "connection must be an object with endpoint and/or token");
    return;
  }
  const { endpoint, token } = connection as Record<string, unknown>;
  if (endpoint !== undefined && endpoint !== null && !isUnknown(endpoint)) {
    const problem = endpointProblem(endpoint);
    if (problem) fail("connection.endpoint", problem);
  }
  // Never echo the token's value: only its type or emptiness.
  if (token !== undefined && token !== null && !isUnknown(token)) {
    if (typeof token !== "string") fail("connection.token", `connection.token must be a string, got ${typeof token}`);
    else if (token.trim() === "") fail("connection.token", "connection.token must not be empty");
  }
}

/** Why an endpoint is unusable, or undefined when it is an http(s) URL. */
export function endpointProblem(endpoint: unknown): string | undefined {
  if (typeof endpoint !== "string" || endpoint.trim() === "") {
    return "connection.endpoint must be a non-empty URL such as https://cms.example.com";
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `connection.endpoint must be an absolute http(s) URL, got "${endpoint}"`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `connection.endpoint must use http or https, got "${url.protocol}"`;
  }
  if (url.username || url.password) {
    return "connection.endpoint must not contain credentials: pass the token as connection.token";
  }
  return undefined;
}

/** Render a rejected value for a message (strings quoted, so `"3"` is visibly not `3`). */
function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v !== "object") return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
