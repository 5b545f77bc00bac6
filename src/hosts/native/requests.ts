/**
 * The native plugin's translation of the engine's gRPC requests into the core's requests
 * (`provider/operations/requests.ts`), as `hosts/dynamic/requests.ts` is the dynamic face's: each
 * call's URN, timeout and preview flag from the message, and its property bags (protobuf Structs)
 * read into the core's typed inputs, secrets revealed (`properties.ts`), with where each secret sat
 * and what it held kept for what goes back (`responses.ts`).
 *
 * The program's inputs reach check as they came: check is what judges them, and a wrong value is
 * a check failure naming the property and the rule. Every later call carries what check returned,
 * or the outputs this provider recorded; a value there of another type than the fields'
 * declaration (`@pulumi-cms/contract`) says is an engine-side bug or a damaged state, and fails
 * the call naming the property and the rule instead of reaching the service (`../request-rules.ts`).
 */
import { type ConnectionInputs, dropEmpty } from "../../connection";
import { lookupCluster, lookupClusters, lookupKubeconfig, lookupNode, lookupNodes, type LookupCall } from "../../provider/lookups";
import type {
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  ReadRequest,
  UpdateRequest,
} from "../../provider/operations/requests";
import type { TimeoutStrings } from "../../provider/properties/timeouts";
import type { ClusterOutputs } from "../../provider/types";
import { InvalidArgumentError } from "../../shared/errors/invalid-argument-error";
import { assertInputs, assertOutputs, assertPreviewedInputs, connectionProblem } from "../request-rules";
import { fromStruct, type PropertyPath, reveal, secretPaths, secretStrings } from "./properties";
import { NATIVE_CLUSTER_TYPE as CLUSTER_TYPE } from "./type-token";

/** A protobuf Struct as the generated stubs hand it over (absent: the engine sent nil). */
export interface StructLike {
  toJavaScript(): Record<string, unknown>;
}

/** The members of the engine's requests read here, as the generated stubs name their getters. */
interface Addressed {
  getUrn(): string;
}
interface Typed extends Addressed {
  getType(): string;
}
interface Identified {
  getId(): string;
}
interface Changing {
  getOlds(): StructLike | undefined;
  getNews(): StructLike | undefined;
}
interface Holding {
  getProperties(): StructLike | undefined;
}
interface Timed {
  getTimeout(): number;
}
interface Previewable extends Timed {
  getPreview(): boolean;
}
export type CheckRpc = Typed & Changing;
export type DiffRpc = Addressed & Identified & Changing;
export type CreateRpc = Typed & Holding & Previewable;
export type ReadRpc = Addressed & Identified & Holding & { getInputs(): StructLike | undefined };
export type UpdateRpc = Typed & Identified & Changing & Previewable & { getOldInputs(): StructLike | undefined };
export type DeleteRpc = Addressed & Identified & Holding & Timed;
export interface InvokeRpc {
  getTok(): string;
  getArgs(): StructLike | undefined;
}

/** A core request read from the engine's, with where its secrets sat. */
export interface Parsed<R> {
  request: R;
  /** Where the engine's secret wrappers sat in the request's bags: what goes back is marked there. */
  paths: PropertyPath[];
}

/**
 * Every string a secret of a request held, added as the request is read (before any rule may
 * refuse it): no message of this provider may show them, this request's or a later one's.
 */
export type SecretSink = Set<string>;

/** The requests' property bags, revealed, and where their secrets sat; what they held goes to `seen`. */
function inbound(seen: SecretSink, ...structs: Array<StructLike | undefined>): { plain: Record<string, unknown>[]; paths: PropertyPath[] } {
  const bags = structs.map(fromStruct);
  for (const s of secretStrings(...bags)) seen.add(s);
  return { plain: bags.map((b) => reveal(b) as Record<string, unknown>), paths: secretPaths(...bags) };
}

/** Only `cms:index:Cluster` is served: the type named by the request, or by its URN. */
function requireCluster(req: Typed): void {
  const type = req.getType() || (req.getUrn().split("::")[2] ?? "");
  if (type && type !== CLUSTER_TYPE) throw new InvalidArgumentError(`unknown resource type ${type}: this plugin serves ${CLUSTER_TYPE}`);
}

/** The engine's timeout (seconds; 0 when the program set none) as the core's timeout strings. */
function timeouts(op: "create" | "update" | "delete", seconds: number): TimeoutStrings | undefined {
  return seconds > 0 ? { [op]: `${seconds}s` } : undefined;
}

/** `Check`: the program's inputs as they came (check judges them), the recorded ones, the stack's seed. */
export function checkRequest(req: CheckRpc, seen: SecretSink, seed: string | undefined): Parsed<CheckRequest> {
  requireCluster(req);
  const {
    plain: [olds, news],
    paths,
  } = inbound(seen, req.getOlds(), req.getNews());
  return { request: { urn: req.getUrn(), olds, news, seed }, paths };
}

/** `Diff`: the recorded outputs against the checked inputs (unknown ones in a preview). */
export function diffRequest(req: DiffRpc, seen: SecretSink): Parsed<DiffRequest> {
  const {
    plain: [olds, news],
    paths,
  } = inbound(seen, req.getOlds(), req.getNews());
  assertOutputs(olds, "Diff", "olds");
  assertPreviewedInputs(news, "Diff", "news");
  return { request: { id: req.getId(), urn: req.getUrn(), olds, news }, paths };
}

/** `Create`: the checked inputs, all known unless it is a preview. */
export function createRequest(req: CreateRpc, seen: SecretSink): Parsed<CreateRequest> {
  requireCluster(req);
  const {
    plain: [inputs],
    paths,
  } = inbound(seen, req.getProperties());
  const call = { urn: req.getUrn(), timeouts: timeouts("create", req.getTimeout()) };
  if (req.getPreview()) {
    assertPreviewedInputs(inputs, "Create", "properties");
    return { request: { ...call, preview: true, inputs }, paths };
  }
  assertInputs(inputs, "Create", "properties");
  return { request: { ...call, preview: false, inputs }, paths };
}

/**
 * `Read`: the recorded outputs; none at all on `pulumi import`, which looks the cluster up like
 * `Cluster.get`, so that a wrong id fails naming it instead of importing nothing. Also the
 * recorded inputs, which a refresh keeps apart from what it corrects.
 */
export function readRequest(
  req: ReadRpc,
  seen: SecretSink,
): Parsed<ReadRequest> & { importing: boolean; oldInputs: Record<string, unknown> } {
  // What the state holds secret stays secret in what the read records: both bags count.
  const {
    plain: [state, oldInputs],
    paths,
  } = inbound(seen, req.getProperties(), req.getInputs());
  assertOutputs(state, "Read", "properties");
  const importing = Object.keys(state).length === 0;
  const request: ReadRequest = { id: req.getId(), urn: req.getUrn(), state, lookup: importing ? "pulumi import" : undefined };
  return { request, paths, importing, oldInputs };
}

/** `Update`: from the recorded outputs to the checked inputs, all known unless it is a preview. */
export function updateRequest(req: UpdateRpc, seen: SecretSink): Parsed<UpdateRequest> {
  requireCluster(req);
  const {
    plain: [recorded, news],
    paths,
  } = inbound(seen, req.getOlds(), req.getNews(), req.getOldInputs());
  assertOutputs(recorded, "Update", "olds");
  // Every state this provider records holds the outputs a cluster always has (a create that
  // failed part-way records its checked inputs with the status `unknown`), and update reads
  // only `workers`, `nodeSize` and the kubeconfig of them.
  const olds = recorded as ClusterOutputs;
  const call = { id: req.getId(), urn: req.getUrn(), olds, timeouts: timeouts("update", req.getTimeout()) };
  if (req.getPreview()) {
    assertPreviewedInputs(news, "Update", "news");
    return { request: { ...call, preview: true, news }, paths };
  }
  assertInputs(news, "Update", "news");
  return { request: { ...call, preview: false, news }, paths };
}

/** `Delete`: the recorded outputs (the connection to reach the cluster by). */
export function deleteRequest(req: DeleteRpc, seen: SecretSink): Parsed<DeleteRequest> {
  const {
    plain: [state],
    paths,
  } = inbound(seen, req.getProperties());
  assertOutputs(state, "Delete", "properties");
  return { request: { id: req.getId(), urn: req.getUrn(), state, timeouts: timeouts("delete", req.getTimeout()) }, paths };
}

/** The lookups this plugin serves, by token. */
const LOOKUPS: Record<string, (args: Record<string, unknown>) => LookupCall<unknown>> = {
  "cms:index:getCluster": lookupCluster,
  "cms:index:getClusters": lookupClusters,
  "cms:index:getNodes": lookupNodes,
  "cms:index:getNode": lookupNode,
  "cms:index:getKubeconfig": lookupKubeconfig,
};

/** An `Invoke` of one of the lookups, its arguments checked. */
export interface InvokeCall {
  /** The function's token, `cms:index:getCluster`. */
  tok: string;
  /** Its name in messages, `getCluster`. */
  name: string;
  /** The lookup, its arguments checked: what is left is the API call. */
  call: LookupCall<unknown>;
  /** The `connection` argument, empty members dropped. */
  explicit: ConnectionInputs;
  /** getKubeconfig's `credential`; `static` for the others. */
  credential: "exec" | "static";
  /** Some argument other than the connection was a secret: what it finds is as secret. */
  fromSecret: boolean;
}

/** `Invoke`: which lookup, on which arguments (each checked before any call, naming the argument and the rule). */
export function invokeRequest(req: InvokeRpc, seen: SecretSink): InvokeCall {
  const tok = req.getTok();
  const lookup = LOOKUPS[tok];
  if (!lookup) throw new InvalidArgumentError(`unknown function ${tok}: this plugin serves ${Object.keys(LOOKUPS).join(", ")}`);
  const {
    plain: [args],
  } = inbound(seen, req.getArgs());
  const name = tok.replace(/^cms:index:/, "");
  const call = lookup(args);
  const { connection: _connection, ...keys } = fromStruct(req.getArgs());
  return {
    tok,
    name,
    call,
    explicit: connectionArgument(name, args.connection),
    credential: tok === "cms:index:getKubeconfig" ? kubeconfigCredential(args.credential) : "static",
    fromSecret: secretPaths(keys).length > 0,
  };
}

/** A lookup's `connection` argument: an object of strings, empty ones dropped. */
function connectionArgument(fn: string, value: unknown): ConnectionInputs {
  if (value === undefined || value === null) return {};
  const problem = connectionProblem(value, false);
  if (problem) throw new InvalidArgumentError(`${fn}: connection${problem}`);
  return dropEmpty(value as ConnectionInputs);
}

/** getKubeconfig's `credential`: `static` (the default, the kubeconfig as the service sends it) or `exec`. */
function kubeconfigCredential(value: unknown): "exec" | "static" {
  if (value === undefined || value === null || value === "static") return "static";
  if (value === "exec") return "exec";
  throw new InvalidArgumentError(`getKubeconfig: credential must be "exec" or "static", got ${JSON.stringify(value)}`);
}
