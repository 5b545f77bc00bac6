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
 */
import { omitUndefinedDeep } from "@pulumi-cms/contract";
import { ClusterInitError } from "../../provider/errors";
import type {
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  Previewed,
  ReadRequest,
  UpdateRequest,
} from "../../provider/operations/requests";
import type { CheckResult, ReadResult } from "../../provider/operations/results";
import type { TimeoutStrings } from "../../provider/properties/timeouts";
import type { ClusterInputs, ClusterOutputs } from "../../provider/types";

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

function urnOf(hidden: HiddenInputs): string | undefined {
  return typeof hidden.__urn === "string" ? hidden.__urn : undefined;
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
  // The Cluster shows the engine the auto-name the state records (resources/cluster.ts); it is
  // not the user's name: check derives or keeps it as if the program left it out.
  if (hidden.__nameFromState === true) delete plain.name;
  const result = await check({
    urn: urnOf(hidden),
    olds: olds ?? {},
    news: plain,
    seed: plain.__seed,
    timeouts: hidden.__timeouts,
    importId: hidden.__import,
    inState: hidden.__inState as CheckRequest["inState"],
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
 * `diff(id, olds, news)` of the dynamic host as the core's request. The bags are taken as they
 * come, unchecked, as every release's state has been: the outputs this provider recorded, and the
 * inputs its check returned (in a preview, any may be unknown).
 */
export function diffRequest(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): DiffRequest {
  return { id, urn: urnOf(split(news).hidden), olds: olds as Partial<ClusterOutputs>, news: news as Previewed<ClusterInputs> };
}

/** `create(inputs)` of the dynamic host, as the core's create request and its answer. */
export async function dynamicCreate<R extends { outs: ClusterOutputs }>(
  bag: Record<string, unknown>,
  create: (request: CreateRequest) => Promise<R>,
): Promise<R> {
  const { plain, hidden } = split(bag);
  const result = await carryingOnInitError(hidden, () =>
    create({
      urn: urnOf(hidden),
      timeouts: hidden.__timeouts as TimeoutStrings | undefined,
      importId: hidden.__import ? String(hidden.__import) : undefined,
      inputs: plain as unknown as ClusterInputs,
    }),
  );
  return { ...result, outs: withCarried(result.outs, carried(hidden)) };
}

/** `read(id, props)` of the dynamic host, as the core's read request and its answer. */
export async function dynamicRead(
  id: string,
  props: Record<string, unknown> | undefined,
  read: (request: ReadRequest) => Promise<ReadResult>,
): Promise<ReadResult> {
  const { plain, hidden } = split(props);
  const get = hidden.__get;
  const lookup = typeof get === "string" ? get : get === true ? "Cluster.get" : undefined;
  const result = await read({ id, urn: urnOf(hidden), state: plain as Partial<ClusterOutputs>, lookup });
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
  const result = await carryingOnInitError(hidden, () =>
    update({
      id,
      urn: urnOf(hidden),
      timeouts: hidden.__timeouts as TimeoutStrings | undefined,
      olds: split(olds).plain as unknown as ClusterOutputs,
      news: plain as unknown as ClusterInputs,
    }),
  );
  return { ...result, outs: withCarried(result.outs, carried(hidden)) };
}

/** `delete(id, props)` of the dynamic host as the core's request. */
export function deleteRequest(id: string, props: Record<string, unknown>): DeleteRequest {
  const { plain, hidden } = split(props);
  return { id, urn: urnOf(hidden), timeouts: hidden.__timeouts as TimeoutStrings | undefined, state: plain as Partial<ClusterOutputs> };
}
