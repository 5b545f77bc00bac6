/**
 * The native plugin's side of the engine's provider protocol, for `cms:index:Cluster` and the
 * lookups: one handler per call, each reading the engine's request into the core's
 * (`requests.ts`, `config.ts`), calling the core's operation and answering with its result
 * (`responses.ts`).
 */
import { PACKAGE_VERSION } from "../../client/version";
import { resolveConnection } from "../../connection";
import { execKubeconfig } from "../../provider/exec-credential";
import { runLookup } from "../../provider/lookups";
import { check } from "../../provider/operations/check";
import { emptyProviderMemory, OperationContext } from "../../provider/operations/context";
import { create } from "../../provider/operations/create";
import { deleteCluster } from "../../provider/operations/delete";
import { diff } from "../../provider/operations/diff";
import { read } from "../../provider/operations/read";
import type {
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  ReadRequest,
  UpdateRequest,
} from "../../provider/operations/requests";
import type { CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from "../../provider/operations/results";
import { update } from "../../provider/operations/update";
import { OperationError } from "../../provider/errors";
import { UNKNOWN } from "../../provider/properties/unknown";
import { redact } from "../../client/redact";
import { InvalidArgumentError } from "../../shared/errors/invalid-argument-error";
import { ENGINE_SPELLS, EngineWaves, noExpectedOperations } from "../engine-waves";
import type { HostRuntime } from "../process";
import { checkedConfig, type Configuration, configChanged, configuration } from "./config";
import { pluginKubeconfigCommand } from "./kubeconfig-command";
import { markSecrets } from "./properties";
import {
  checkRequest,
  createRequest,
  deleteRequest,
  diffRequest,
  type InvokeCall,
  invokeRequest,
  readRequest,
  updateRequest,
} from "./requests";
import {
  checkResponse,
  configDiffResponse,
  configureResponse,
  createResponse,
  diffResponse,
  emptyResponse,
  handshakeResponse,
  invokeResponse,
  pluginInfoResponse,
  readResponse,
  schemaResponse,
  updateResponse,
  withInitFailure,
} from "./responses";
import { packageSchema } from "./schema";

// biome-ignore lint/suspicious/noExplicitAny: protobuf messages of the generated stubs
type Handler = (req: any) => Promise<any>;

/**
 * The handlers of the ResourceProvider service on one provider's memory, in the process of
 * `runtime` (the plugin's entry makes it), and the secrets its messages must not show.
 */
export function providerHandlers(runtime: HostRuntime): { handlers: Record<string, Handler>; secrets: () => string[] } {
  const provider = new NativeProvider(runtime);
  const handlers: Record<string, Handler> = {
    // Answered from the same capabilities as configure, which the protocol requires to agree.
    handshake: async () => handshakeResponse(),
    getPluginInfo: async () => pluginInfoResponse(PACKAGE_VERSION),
    getSchema: async (req) => {
      if (req.getVersion() !== 0)
        throw new InvalidArgumentError(`unsupported schema version ${req.getVersion()}: this plugin has version 0`);
      return schemaResponse(packageSchema(PACKAGE_VERSION));
    },
    checkConfig: async (req) => {
      const { inputs, failures } = checkedConfig(req, runtime.drawnSeeds);
      return checkResponse(inputs, failures);
    },
    diffConfig: async (req) => configDiffResponse(configChanged(req)),
    configure: async (req) => {
      provider.configure(configuration(req));
      return configureResponse();
    },
    check: async (req) => {
      const { request, paths } = checkRequest(req, provider.seen, provider.seed);
      const { inputs, failures } = await provider.check(request);
      return checkResponse(markSecrets(inputs, paths), failures);
    },
    diff: async (req) => {
      const { request } = diffRequest(req, provider.seen);
      return diffResponse(await provider.diff(request));
    },
    create: async (req) => {
      const { request, paths } = createRequest(req, provider.seen);
      return createResponse(await withInitFailure(() => provider.create(request), paths), paths);
    },
    read: async (req) => {
      const parsed = readRequest(req, provider.seen);
      return readResponse(await provider.read(parsed.request), parsed);
    },
    update: async (req) => {
      const { request, paths } = updateRequest(req, provider.seen);
      return updateResponse(await withInitFailure(() => provider.update(request), paths), paths);
    },
    delete: async (req) => {
      await provider.delete(deleteRequest(req, provider.seen).request);
      return emptyResponse();
    },
    invoke: async (req) => {
      const call = invokeRequest(req, provider.seen);
      return invokeResponse(call.tok, await provider.lookup(call), call.fromSecret, provider.seen);
    },
    // Ctrl-C: the engine lets the operations under way finish and starts no other. Their waits
    // end now; a create reports its cluster as not ready (an init failure with its id), so the
    // stack keeps it and the next `pulumi up` continues from it rather than creating another.
    cancel: async () => {
      provider.ctx.cancel();
      return emptyResponse();
    },
    attach: async () => emptyResponse(),
  };
  return { handlers, secrets: () => provider.secrets() };
}

/** One provider's memory: its configuration and seed, the secrets it was given, the waves of first polls, Ctrl-C. */
class NativeProvider {
  readonly memory = emptyProviderMemory();
  /** The stack's auto-name seed, from the configuration. */
  seed: string | undefined;
  /** Every value the program gave as a secret, for the messages this provider sends back. */
  readonly seen = new Set<string>();
  /**
   * A preview of a stack whose provider is not in the state yet: the seed drawn for it is not the
   * one `up` records (each run draws its own), so neither is an auto-name derived from it.
   */
  private seedIsProvisional = false;
  /** What the engine's calls say of the operations to come, for the waves of first polls. */
  private readonly expected = noExpectedOperations();
  private readonly waves: EngineWaves;
  readonly ctx: OperationContext;

  constructor(readonly runtime: HostRuntime) {
    this.waves = new EngineWaves(() => this.expected, ENGINE_SPELLS, runtime.pollers);
    this.ctx = new OperationContext(
      runtime,
      () => this.memory,
      () => runtime.settings,
      () => this.waves,
    );
  }

  /** The secrets no message may show: the configured token and every secret value received. */
  secrets(): string[] {
    return [...(this.memory.configured.token ? [this.memory.configured.token] : []), ...this.seen];
  }

  configure(configuration: Configuration): void {
    this.memory.configured = configuration.connection;
    this.seed = configuration.seed;
    this.seedIsProvisional = configuration.seedIsProvisional;
  }

  async check(request: CheckRequest): Promise<CheckResult> {
    const result = await check(this.ctx, request);
    if (result.failures.length === 0) this.waves.checked(request.urn ?? "");
    // A failure may quote the value it refuses.
    const failures = result.failures.map((f) => ({ ...f, reason: redact(f.reason, this.secrets()) }));
    // Only a preview configures a provider under the unknown id, and a preview may return unknowns.
    if (this.seedIsProvisional && result.inputs.__autonamed === true) result.inputs.name = UNKNOWN;
    return { ...result, failures };
  }

  async diff(request: DiffRequest): Promise<DiffResult> {
    const d = await diff(request);
    if (!d.changes) this.waves.settled(request.urn ?? "");
    return d;
  }

  async create(request: CreateRequest): Promise<CreateResult> {
    this.waves.settled(request.urn ?? "");
    if (!request.preview) this.refuseIfCancelled("creating the cluster");
    return create(this.ctx, request);
  }

  async update(request: UpdateRequest): Promise<UpdateResult> {
    this.waves.settled(request.urn ?? "");
    if (!request.preview) this.refuseIfCancelled(`updating cluster ${request.id}`);
    return update(this.ctx, request);
  }

  read(request: ReadRequest): Promise<ReadResult> {
    return read(this.ctx, request);
  }

  async delete(request: DeleteRequest): Promise<void> {
    this.refuseIfCancelled(`deleting cluster ${request.id}`);
    await deleteCluster(this.ctx, request);
  }

  /** One lookup, over its `connection` argument, the provider's configuration or the environment. */
  async lookup(call: InvokeCall): Promise<Record<string, unknown>> {
    const { explicit } = call;
    const connection = resolveConnection({ explicit, config: this.memory.configured, env: process.env, caller: "function" });
    const result = (await runLookup(this.runtime, call.name, connection, call.call)) as Record<string, unknown>;
    if (call.credential === "exec") {
      // The token recorded is only one the state holds already, encrypted: the call's own or the
      // provider's configuration (`cms:token`); one from CMS_TOKEN stays out, and the command
      // reads it from the environment the Kubernetes provider runs in, as kubernetesProvider's does.
      const recordedToken = [explicit.token, this.memory.configured.token].find((t) => t?.trim())?.trim();
      const target = { clusterId: String(result.clusterId), endpoint: connection.endpoint, recordedToken };
      result.kubeconfig = execKubeconfig(String(result.kubeconfig), target, pluginKubeconfigCommand());
    }
    return result;
  }

  /** After Ctrl-C the engine starts no operation; one already on its way here changes nothing. */
  private refuseIfCancelled(what: string): void {
    if (this.ctx.cancelled)
      throw new OperationError(`${what} was not started: the update was cancelled (Ctrl-C); nothing was changed`, "cancelled");
  }
}
