/**
 * The dynamic face's translation between its engine's property bags and the core's requests.
 *
 * Pulumi's Node dynamic-provider host hands a provider property bags and nothing else: no URN, no
 * `customTimeouts`, no sign of a `Cluster.get` or of the `import` option. So the `Cluster`
 * (`resources/cluster.ts`) carries each as a hidden input, and this module reads them into the
 * core's requests (`provider/operations/requests.ts`) and writes them back into what the
 * operations return, where the dynamic face's state has always held them (state written by every
 * release must load, and a state written now must load in the releases after):
 *
 * - `__urn` and `__timeouts`: in the inputs and the outputs;
 * - `__import`: in the inputs, until check drops it (a resource in the state, a replacement);
 * - `__get`: set by `Cluster.get`, which makes the read a lookup; never in the outputs;
 * - `__inState` and `__nameFromState`: what the program read from the state; check consumes them;
 * - `__provider`: the serialized provider, which the host adds to what an operation returns but
 *   not to the properties of an init error.
 *
 * (`__seed`, `__autonamed` and `__requestedAt` are what check records in both faces' state:
 * `RecordedFields` in `provider/types.ts`.)
 *
 * Each bag is parsed, as the native host parses its engine's (`../request-rules.ts`): the
 * program's inputs reach check as they came (check judges them), and every later call's bags,
 * what check returned and the outputs this provider recorded, are held to the fields'
 * declaration, as are the hidden inputs each call reads; a wrong type fails the call naming the
 * request and the property (`the engine's update request: news.workers must be an integer, got a
 * string`) before any request to the service.
 */
import { omitUndefinedDeep } from "@pulumi-cms/contract";
import { ClusterInitError } from "../../provider/errors";
import type {
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  ReadRequest,
  UpdateRequest,
} from "../../provider/operations/requests";
import type { CheckResult, ReadResult } from "../../provider/operations/results";
import { TIMEOUT_OPERATIONS, type TimeoutStrings } from "../../provider/properties/timeouts";
import { UNKNOWN } from "../../provider/properties/unknown";
import type { ClusterOutputs } from "../../provider/types";
import { InvalidArgumentError } from "../../shared/errors/invalid-argument-error";
import { assertInputs, assertOutputs, assertPreviewedInputs, kindOf } from "../request-rules";

/** The hidden inputs that describe a call rather than the cluster (see the module comment). */
interface HiddenInputs {
  __urn?: unknown;
  __timeouts?: unknown;
  __import?: unknown;
  __get?: unknown;
  __inState?: unknown;
  __nameFromState?: unknown;
  __provider?: unknown;
}

const HIDDEN = ["__urn", "__timeouts", "__import", "__get", "__inState", "__nameFromState", "__provider"] as const;

/** A bag's hidden inputs apart from the rest. */
function split(bag: Record<string, unknown> | undefined): { plain: Record<string, unknown>; hidden: HiddenInputs } {
  const plain: Record<string, unknown> = { ...(bag ?? {}) };
  const hidden: Record<string, unknown> = {};
  for (const k of HIDDEN) {
    if (k in plain) hidden[k] = plain[k];
    delete plain[k];
  }
  return { plain, hidden };
}

/** Where a call found a bag: `{ call: "update", where: "news" }`, for messages. */
interface Source {
  call: string;
  where: string;
}

/**
 * A hidden input, read by its rule: absent (or `null`) is undefined, and a value of another kind
 * fails the call naming it. The value itself is not shown.
 */
function hiddenInput<T>(
  hidden: HiddenInputs,
  key: keyof HiddenInputs,
  from: Source,
  rule: string,
  holds: (v: unknown) => v is T,
): T | undefined {
  const value = hidden[key];
  if (value === undefined || value === null) return undefined;
  if (!holds(value))
    throw new InvalidArgumentError(`the engine's ${from.call} request: ${from.where}.${key} must be ${rule}, got ${kindOf(value)}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === "string";

/** The URN the Cluster carries (a preview's may be the unknown sentinel, a string too). */
function urnOf(hidden: HiddenInputs, from: Source): string | undefined {
  return hiddenInput(hidden, "__urn", from, "a string", isString);
}

/** `customTimeouts` as the Cluster recorded it (check has judged each string): an object of strings. */
function timeoutsOf(hidden: HiddenInputs, from: Source): TimeoutStrings | undefined {
  const isTimeouts = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    TIMEOUT_OPERATIONS.every((op) => isString((v as Record<string, unknown>)[op]) || (v as Record<string, unknown>)[op] == null);
  const value = hiddenInput(hidden, "__timeouts", from, "an object of strings create, update and delete", isTimeouts);
  if (value === undefined) return undefined;
  const out: TimeoutStrings = {};
  for (const op of TIMEOUT_OPERATIONS) if (isString(value[op])) out[op] = value[op];
  return out;
}

/** What an operation's inputs and outputs keep of the call: the URN and the timeouts. */
function carried(hidden: HiddenInputs): Record<string, unknown> {
  return { __timeouts: hidden.__timeouts, __urn: hidden.__urn };
}

/** `bag` with `extra`'s defined values added. */
function withCarried<T extends object>(bag: T, extra: Record<string, unknown>): T {
  return omitUndefinedDeep({ ...bag, ...extra }) as T;
}

/**
 * Run an operation; an init error's properties get what the outputs would have carried, and the
 * serialized provider, which later operations load the provider from.
 */
async function carryingOnInitError<T>(hidden: HiddenInputs, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (!(e instanceof ClusterInitError)) throw e;
    const provider = typeof hidden.__provider === "string" ? { __provider: hidden.__provider } : {};
    throw new ClusterInitError(e.message, e.id, withCarried(e.properties, { ...carried(hidden), ...provider }), e.reasons);
  }
}

/** `check(olds, news)` of the dynamic host, as the core's check request and its answer. */
export async function dynamicCheck(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  check: (request: CheckRequest) => Promise<CheckResult>,
): Promise<CheckResult> {
  const { plain, hidden } = split(news);
  const from = { call: "check", where: "news" };
  // The Cluster shows the engine the auto-name the state records (resources/cluster.ts); it is
  // not the user's name: check derives or keeps it as if the program left it out.
  if (hidden.__nameFromState === true) delete plain.name;
  // What the program read from the state: unknown in a preview of a resource not yet read.
  const isRecord = (v: unknown): v is { name?: unknown } | typeof UNKNOWN =>
    v === UNKNOWN || (typeof v === "object" && v !== null && !Array.isArray(v));
  const inState = hiddenInput(hidden, "__inState", from, "an object", isRecord);
  const result = await check({
    urn: urnOf(hidden, from),
    olds: olds ?? {},
    news: plain,
    seed: plain.__seed,
    // Judged by check, which reports a wrong one as a check failure.
    timeouts: hidden.__timeouts,
    importId: hidden.__import,
    inState: inState === UNKNOWN ? undefined : inState,
  });
  const inputs = withCarried(result.inputs, {
    ...carried(hidden),
    __import: result.importId,
    __get: hidden.__get,
    __provider: hidden.__provider,
  });
  return { inputs, failures: result.failures };
}

/**
 * `diff(id, olds, news)` of the dynamic host as the core's request: the outputs this provider
 * recorded against the inputs its check returned (in a preview, any may be unknown).
 */
export function diffRequest(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): DiffRequest {
  const recorded = split(olds).plain;
  const { plain, hidden } = split(news);
  assertOutputs(recorded, "diff", "olds");
  assertPreviewedInputs(plain, "diff", "news");
  return { id, urn: urnOf(hidden, { call: "diff", where: "news" }), olds: recorded, news: plain };
}

/** `create(inputs)` of the dynamic host, as the core's create request and its answer. */
export async function dynamicCreate<R extends { outs: ClusterOutputs }>(
  bag: Record<string, unknown>,
  create: (request: CreateRequest) => Promise<R>,
): Promise<R> {
  const { plain, hidden } = split(bag);
  const from = { call: "create", where: "inputs" };
  assertInputs(plain, from.call, from.where);
  const request: CreateRequest = {
    urn: urnOf(hidden, from),
    timeouts: timeoutsOf(hidden, from),
    // Check keeps the `import` option's id only when it is one (an empty one imports nothing).
    importId: hiddenInput(hidden, "__import", from, "a string", isString) || undefined,
    inputs: plain,
  };
  const result = await carryingOnInitError(hidden, () => create(request));
  return { ...result, outs: withCarried(result.outs, carried(hidden)) };
}

/** `read(id, props)` of the dynamic host, as the core's read request and its answer. */
export async function dynamicRead(
  id: string,
  props: Record<string, unknown> | undefined,
  read: (request: ReadRequest) => Promise<ReadResult>,
): Promise<ReadResult> {
  const { plain, hidden } = split(props);
  const from = { call: "read", where: "props" };
  assertOutputs(plain, from.call, from.where);
  // `Cluster.get` marks the read a lookup, naming itself (or another caller) in messages.
  const get = hiddenInput(
    hidden,
    "__get",
    from,
    "a string or a boolean",
    (v): v is string | boolean => isString(v) || typeof v === "boolean",
  );
  const lookup = typeof get === "string" ? get : get === true ? "Cluster.get" : undefined;
  const result = await read({ id, urn: urnOf(hidden, from), state: plain, lookup });
  if (!result.id) return result;
  return {
    id: result.id,
    props: result.props && withCarried(result.props, carried(hidden)),
    inputs: result.inputs && withCarried(result.inputs, carried(hidden)),
  };
}

/** `update(id, olds, news)` of the dynamic host, as the core's update request and its answer. */
export async function dynamicUpdate<R extends { outs: ClusterOutputs }>(
  id: string,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  update: (request: UpdateRequest) => Promise<R>,
): Promise<R> {
  const { plain, hidden } = split(news);
  const recorded = split(olds).plain;
  const from = { call: "update", where: "news" };
  assertOutputs(recorded, from.call, "olds");
  assertInputs(plain, from.call, from.where);
  const request: UpdateRequest = {
    id,
    urn: urnOf(hidden, from),
    timeouts: timeoutsOf(hidden, from),
    // Every state this provider records holds the outputs a cluster always has (a create that
    // failed part-way records its checked inputs with the status `unknown`), and update reads
    // only `workers`, `nodeSize` and the kubeconfig of them (as in the native host).
    olds: recorded as ClusterOutputs,
    news: plain,
  };
  const result = await carryingOnInitError(hidden, () => update(request));
  return { ...result, outs: withCarried(result.outs, carried(hidden)) };
}

/** `delete(id, props)` of the dynamic host as the core's request. */
export function deleteRequest(id: string, props: Record<string, unknown>): DeleteRequest {
  const { plain, hidden } = split(props);
  const from = { call: "delete", where: "props" };
  assertOutputs(plain, from.call, from.where);
  return { id, urn: urnOf(hidden, from), timeouts: timeoutsOf(hidden, from), state: plain };
}
