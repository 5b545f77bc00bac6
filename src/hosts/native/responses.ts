/**
 * The native plugin's answers to the engine, in one place: the core's results as the protocol's
 * messages (`provider_pb` of @pulumi/pulumi's stubs), what went in secret marked secret again
 * (`properties.ts`), and a failure as the gRPC error the engine reads (an init failure carrying
 * the cluster it must keep).
 */
import { safeMessage } from "../../connection";
import { ClusterInitError } from "../../provider/errors";
import type { CheckFailure, CreateResult, DiffResult, ReadResult, UpdateResult } from "../../provider/operations/results";
import { CLUSTER_INPUT_PROPERTIES, UPDATABLE_PROPERTIES } from "../../provider/types";
import { pulumiGrpc } from "../pulumi-grpc";
import { markSecrets, markValues, type PropertyPath, secret, withoutPerRequest } from "./properties";

/**
 * What the plugin tells the engine it accepts, in Handshake and again in Configure (the protocol
 * requires the two to agree): secrets as typed values (they stay secret through every operation);
 * no resource references and no output values, which the plugin's inputs never hold; and no
 * engine-provided auto-naming, since the plugin derives a cluster's name from the stack's own seed
 * (`config.ts`), which is what lets a killed create be taken over by the next run.
 */
const CAPABILITIES = {
  acceptSecrets: true,
  acceptResources: false,
  acceptOutputs: false,
  supportsAutonamingConfiguration: false,
} as const;

/** Secret members of each lookup's result. */
const SECRET_RESULTS: Record<string, string[]> = { "cms:index:getKubeconfig": ["kubeconfig"] };

function toStruct(value: Record<string, unknown>) {
  return pulumiGrpc().struct.Struct.fromJavaScript(value);
}

/** Handshake, the engine's first call (Pulumi 3.x): what this plugin accepts, before anything is configured. */
export function handshakeResponse() {
  return new (pulumiGrpc().provider.ProviderHandshakeResponse)()
    .setAcceptSecrets(CAPABILITIES.acceptSecrets)
    .setAcceptResources(CAPABILITIES.acceptResources)
    .setAcceptOutputs(CAPABILITIES.acceptOutputs)
    .setSupportsAutonamingConfiguration(CAPABILITIES.supportsAutonamingConfiguration)
    .setAcceptsByteString(false)
    .setAcceptsOutputsInInvoke(false)
    .setAcceptsOutputsInCall(false)
    .setAcceptsOutputsInCheck(false);
}

/** Configure's answer: the same capabilities as Handshake's, and previews supported. */
export function configureResponse() {
  return new (pulumiGrpc().provider.ConfigureResponse)()
    .setAcceptsecrets(CAPABILITIES.acceptSecrets)
    .setSupportspreview(true)
    .setAcceptresources(CAPABILITIES.acceptResources)
    .setAcceptoutputs(CAPABILITIES.acceptOutputs);
}

export function pluginInfoResponse(version: string) {
  return new (pulumiGrpc().plugin.PluginInfo)().setVersion(version);
}

export function schemaResponse(schema: unknown) {
  return new (pulumiGrpc().provider.GetSchemaResponse)().setSchema(JSON.stringify(schema));
}

/** Check's and CheckConfig's answer: the inputs to record, and each failure as "property: reason". */
export function checkResponse(inputs: Record<string, unknown>, failures: readonly CheckFailure[]) {
  const { provider: proto } = pulumiGrpc();
  const resp = new proto.CheckResponse().setInputs(toStruct(inputs));
  resp.setFailuresList(failures.map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
  return resp;
}

/** DiffConfig's answer: some change or none. */
export function configDiffResponse(changed: boolean) {
  const { provider: proto } = pulumiGrpc();
  return new proto.DiffResponse().setChanges(changed ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
}

/** Diff's answer, with the detailed diff the CLI shows. */
export function diffResponse(d: DiffResult) {
  const { provider: proto } = pulumiGrpc();
  const resp = configDiffResponse(d.changes)
    .setReplacesList(d.replaces)
    .setStablesList(d.stables)
    .setDiffsList(d.diffs)
    .setDeletebeforereplace(d.deleteBeforeReplace)
    .setHasdetaileddiff(true);
  for (const [prop, pd] of Object.entries(d.detailedDiff)) {
    resp.getDetaileddiffMap().set(prop, new proto.PropertyDiff().setKind(proto.PropertyDiff.Kind[pd.kind]).setInputdiff(pd.inputDiff));
  }
  return resp;
}

export function createResponse(result: CreateResult, paths: readonly PropertyPath[]) {
  return new (pulumiGrpc().provider.CreateResponse)().setId(result.id).setProperties(toStruct(markSecrets(result.outs, paths)));
}

export function updateResponse(result: UpdateResult, paths: readonly PropertyPath[]) {
  return new (pulumiGrpc().provider.UpdateResponse)().setProperties(toStruct(markSecrets(result.outs, paths)));
}

/**
 * Read's answer: no id when the cluster is gone. The inputs recorded: for `pulumi import` the
 * cluster's own, nothing carried over; for a refresh the program's, with what it corrects.
 */
export function readResponse(
  result: ReadResult,
  read: { importing: boolean; oldInputs: Record<string, unknown>; paths: readonly PropertyPath[] },
) {
  const resp = new (pulumiGrpc().provider.ReadResponse)().setId(result.id ?? "");
  if (!result.id) return resp;
  resp.setProperties(toStruct(markSecrets(result.props ?? {}, read.paths)));
  const found = result.inputs ?? {};
  const inputs = read.importing ? pick(found, CLUSTER_INPUT_PROPERTIES) : { ...read.oldInputs, ...pick(found, UPDATABLE_PROPERTIES) };
  resp.setInputs(toStruct(markSecrets(inputs, read.paths)));
  return resp;
}

/**
 * Invoke's answer: what a secret argument found is as secret as the argument (a secret id's
 * cluster), and so is any value a program gave this provider as a secret (the name of a cluster
 * it made), and the lookup's secret members.
 */
export function invokeResponse(tok: string, result: Record<string, unknown>, fromSecret: boolean, secrets: ReadonlySet<string>) {
  const marked = markValues(result, secrets) as Record<string, unknown>;
  for (const k of Object.keys(marked)) if (fromSecret || SECRET_RESULTS[tok]?.includes(k)) marked[k] = secret(marked[k]);
  return new (pulumiGrpc().provider.InvokeResponse)().setReturn(toStruct(marked));
}

export function emptyResponse() {
  return new (pulumiGrpc().empty.Empty)();
}

/**
 * Run an operation; a cluster that exists but is not ready becomes the engine's "resource
 * initialization failed" ({@link grpcError}; the engine keeps it, with these properties, marked
 * as what went in, for the next run).
 */
export async function withInitFailure<T>(op: () => Promise<T>, paths: readonly PropertyPath[]): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (e instanceof ClusterInitError) {
      throw new ClusterInitError(e.message, e.id, markSecrets(withoutPerRequest(e.properties), paths), e.reasons);
    }
    throw e;
  }
}

/**
 * A gRPC error for `e`, no secret in its words: a {@link ClusterInitError} (its properties as
 * the engine's property values, see {@link withInitFailure}) is the engine's "resource
 * initialization failed", carrying the cluster the engine must keep.
 */
export function grpcError(e: unknown, secrets: string[]) {
  const { grpc, provider, status, any, struct } = pulumiGrpc();
  const message = safeMessage(e, secrets);
  const metadata = new grpc.Metadata();
  const init = e instanceof ClusterInitError ? e : undefined;
  if (init) {
    const detail = new provider.ErrorResourceInitFailed()
      .setId(init.id)
      .setProperties(struct.Struct.fromJavaScript(init.properties))
      .setReasonsList(init.reasons.map((r) => safeMessage(r, secrets)));
    const packed = new any.Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const st = new status.Status().setCode(grpc.status.UNKNOWN).setMessage(message);
    st.addDetails(packed);
    metadata.add("grpc-status-details-bin", Buffer.from(st.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, details: message, message, metadata };
}

function pick(from: object, keys: readonly string[]): Record<string, unknown> {
  const bag = from as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => bag[k] !== undefined).map((k) => [k, bag[k]]));
}
