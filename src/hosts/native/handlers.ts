/**
 * The native plugin's side of the engine's provider protocol, for `cms:index:Cluster` and the
 * lookups: each call turned into the core's request (`provider/operations/requests.ts`) from what
 * the engine sends (the provider's configuration, the operation's timeout, preview, the URN, nil
 * properties on `pulumi import`).
 */
import { randomBytes } from "node:crypto";
import { PACKAGE_VERSION } from "../../client/version";
import { type ConnectionInputs, dropEmpty, resolveConnection } from "../../connection";
import { plainTokenRefusal } from "../../connection/plain-token";
import { ClusterInitError, OperationError } from "../../provider/errors";
import {
  lookupCluster,
  lookupClusters,
  lookupKubeconfig,
  lookupNode,
  lookupNodes,
  type LookupCall,
  runLookup,
} from "../../provider/lookups";
import { SEED_PATTERN } from "../../provider/naming/naming";
import { check } from "../../provider/operations/check";
import { emptyProviderMemory, OperationContext } from "../../provider/operations/context";
import { create } from "../../provider/operations/create";
import { deleteCluster } from "../../provider/operations/delete";
import { diff } from "../../provider/operations/diff";
import { read } from "../../provider/operations/read";
import type { Previewed } from "../../provider/operations/requests";
import { update } from "../../provider/operations/update";
import { processSettings } from "../../provider/settings";
import type { TimeoutStrings } from "../../provider/properties/timeouts";
import { CLUSTER_INPUT_PROPERTIES, type ClusterInputs, type ClusterOutputs, UPDATABLE_PROPERTIES } from "../../provider/types";
import { UNKNOWN } from "../../provider/properties/unknown";
import { execKubeconfig } from "../../provider/exec-credential";
import { pluginKubeconfigCommand } from "./kubeconfig-command";
import { drawnSeeds } from "../../shared/drawn-seeds";
import { InvalidArgumentError } from "../../shared/invalid-argument-error";
import { ENGINE_SPELLS, EngineWaves, noExpectedOperations } from "../engine-waves";
import { pulumiGrpc } from "../pulumi-grpc";
import { redact } from "../../client/redact";
import {
  fromStruct,
  markSecrets,
  markValues,
  type PropertyPath,
  reveal,
  secret,
  secretPaths,
  secretStrings,
  withoutPerRequest,
} from "./properties";
import { packageSchema } from "./schema";
import { stackFileHoldsPlainToken } from "./stack-config-file";
// The one resource type this plugin serves.
import { NATIVE_CLUSTER_TYPE as CLUSTER_TYPE } from "./type-token";

// biome-ignore lint/suspicious/noExplicitAny: protobuf messages of the generated stubs
type Handler = (req: any) => Promise<any>;

const LOOKUPS: Record<string, (args: Record<string, unknown>) => LookupCall<unknown>> = {
  "cms:index:getCluster": lookupCluster,
  "cms:index:getClusters": lookupClusters,
  "cms:index:getNodes": lookupNodes,
  "cms:index:getNode": lookupNode,
  "cms:index:getKubeconfig": lookupKubeconfig,
};

/**
 * What the plugin tells the engine it accepts, in Handshake and again in Configure (the protocol
 * requires the two to agree): secrets as typed values (they stay secret through every operation);
 * no resource references and no output values, which the plugin's inputs never hold; and no
 * engine-provided auto-naming, since the plugin derives a cluster's name from the stack's own seed
 * (`stackSeed` below), which is what lets a killed create be taken over by the next run.
 */
export const CAPABILITIES = {
  acceptSecrets: true,
  acceptResources: false,
  acceptOutputs: false,
  supportsAutonamingConfiguration: false,
} as const;

/** Secret members of each lookup's result. */
const SECRET_RESULTS: Record<string, string[]> = { "cms:index:getKubeconfig": ["kubeconfig"] };

/** The engine's timeout (seconds; 0 when the program set none) as the core's timeout strings. */
function timeouts(op: "create" | "update" | "delete", seconds: number): TimeoutStrings | undefined {
  return seconds > 0 ? { [op]: `${seconds}s` } : undefined;
}

/**
 * The stack's auto-name seed, kept in the provider's own inputs (`__seed`): drawn once, when the
 * provider is first checked, and read back from the state by every later run. The engine's own
 * random seed is new on every run, so a create killed before it reported its cluster would be
 * re-created under another name; with this one the next run derives the same name and takes over
 * the cluster it finds (`provider/naming/adoption.ts`), as the dynamic face does with its seed resource.
 */
function stackSeed(olds: Record<string, unknown>): string {
  if (typeof olds.__seed === "string" && SEED_PATTERN.test(olds.__seed)) return olds.__seed;
  const seed = randomBytes(16).toString("hex");
  // New to the stack: no earlier run can have made a cluster with a name derived from it.
  drawnSeeds().add(seed);
  return seed;
}

/** The connection settings in a provider configuration, secrets revealed. */
function configured(props: Record<string, unknown>): ConnectionInputs {
  const plain = reveal(props) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return dropEmpty({ endpoint: text(plain.endpoint), token: text(plain.token) });
}

/** The handlers of the ResourceProvider service on one provider's memory, and the secrets its messages must not show. */
export function providerHandlers(): { handlers: Record<string, Handler>; secrets: () => string[] } {
  const { provider: proto, struct, empty, plugin } = pulumiGrpc();
  const memory = emptyProviderMemory();
  let seed: string | undefined;
  // Every value the program gave as a secret, for the messages this provider sends back.
  const seen = new Set<string>();
  /** The requests' property bags, plain, and where secrets sat in them (remembered for messages). */
  const inbound = (...structs: Array<{ toJavaScript(): Record<string, unknown> } | undefined>) => {
    const bags = structs.map(fromStruct);
    for (const s of secretStrings(...bags)) seen.add(s);
    return { plain: bags.map((b) => reveal(b) as Record<string, unknown>), paths: secretPaths(...bags) };
  };
  const secrets = () => [...(memory.configured.token ? [memory.configured.token] : []), ...seen];
  // A preview of a stack whose provider is not in the state yet: the seed drawn for it is not the
  // one `up` records (each run draws its own), so neither is an auto-name derived from it.
  let seedIsProvisional = false;
  // What the engine's calls say of the operations to come, for the waves of first polls.
  const expected = noExpectedOperations();
  const waves = new EngineWaves(() => expected, ENGINE_SPELLS);
  const ctx = new OperationContext(
    () => memory,
    () => processSettings(),
    () => waves,
  );
  const toStruct = (value: Record<string, unknown>) => struct.Struct.fromJavaScript(value);
  const requireCluster = (type: string) => {
    if (type && type !== CLUSTER_TYPE) throw new InvalidArgumentError(`unknown resource type ${type}: this plugin serves ${CLUSTER_TYPE}`);
  };
  const typeOf = (urn: string) => urn.split("::")[2] ?? "";
  /** After Ctrl-C the engine starts no operation; one already on its way here changes nothing. */
  const refuseIfCancelled = (what: string) => {
    if (ctx.cancelled)
      throw new OperationError(`${what} was not started: the update was cancelled (Ctrl-C); nothing was changed`, "cancelled");
  };

  const handlers: Record<string, Handler> = {
    // The engine's first call (Pulumi 3.x): what this plugin accepts, before anything is configured.
    // Answered from the same CAPABILITIES as configure, which the protocol requires to agree.
    async handshake() {
      return new proto.ProviderHandshakeResponse()
        .setAcceptSecrets(CAPABILITIES.acceptSecrets)
        .setAcceptResources(CAPABILITIES.acceptResources)
        .setAcceptOutputs(CAPABILITIES.acceptOutputs)
        .setSupportsAutonamingConfiguration(CAPABILITIES.supportsAutonamingConfiguration)
        .setAcceptsByteString(false)
        .setAcceptsOutputsInInvoke(false)
        .setAcceptsOutputsInCall(false)
        .setAcceptsOutputsInCheck(false);
    },
    async getPluginInfo() {
      return new plugin.PluginInfo().setVersion(PACKAGE_VERSION);
    },
    async getSchema(req) {
      if (req.getVersion() !== 0)
        throw new InvalidArgumentError(`unsupported schema version ${req.getVersion()}: this plugin has version 0`);
      return new proto.GetSchemaResponse().setSchema(JSON.stringify(packageSchema(PACKAGE_VERSION)));
    },
    async checkConfig(req) {
      const news = fromStruct(req.getNews());
      const failures: Array<{ property: string; reason: string }> = [];
      for (const key of ["endpoint", "token"]) {
        const v = reveal(news[key]);
        if (v !== undefined && v !== UNKNOWN && typeof v !== "string") failures.push({ property: key, reason: `${key} must be a string` });
      }
      const olds = fromStruct(req.getOlds());
      // No property named: the engine would print its value with the reason.
      if (typeof news.token === "string" && stackFileHoldsPlainToken(req.getUrn()))
        failures.push({ property: "", reason: plainTokenMessage() });
      // The engine sends the configuration here with secrets revealed and marks secret again what
      // it sent as one. A new or changed token goes back as it came, so that a plain one, from
      // wherever the configuration came, reaches configure plain and is refused there (the engine
      // records nothing of a provider it could not create or update). An unchanged one is marked
      // here: the engine records it before configure, and the state must never hold it plain.
      const token = news.token === undefined || olds.token !== news.token ? news.token : secret(news.token);
      const inputs = { ...news, ...(token !== undefined ? { token } : {}), __seed: stackSeed(olds) };
      return checkResponse(inputs, failures);
    },
    async diffConfig(req) {
      const olds = configured(fromStruct(req.getOlds()));
      const news = configured(fromStruct(req.getNews()));
      // Where the service is and which token reaches it are not what the clusters are made of.
      const changed = olds.endpoint !== news.endpoint || olds.token !== news.token;
      return new proto.DiffResponse().setChanges(
        changed ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE,
      );
    },
    async configure(req) {
      const args = req.getArgs() ? fromStruct(req.getArgs()) : variables(req.getVariablesMap());
      // With secrets accepted, a token set without `--secret` arrives plain: Pulumi.<stack>.yaml
      // holds it unencrypted. Refused before any call, as the dynamic face refuses it, naming the fix.
      if (req.getArgs() && req.getAcceptsecrets() && typeof args.token === "string" && args.token !== UNKNOWN) {
        throw new InvalidArgumentError(plainProviderToken(args.token, req.getUrn?.() ?? ""));
      }
      memory.configured = configured(args);
      seed = typeof args.__seed === "string" ? args.__seed : undefined;
      // The engine configures a provider it is only previewing the creation of under the unknown id.
      seedIsProvisional = typeof req.hasId === "function" && req.hasId() && req.getId() === UNKNOWN;
      return new proto.ConfigureResponse()
        .setAcceptsecrets(CAPABILITIES.acceptSecrets)
        .setSupportspreview(true)
        .setAcceptresources(CAPABILITIES.acceptResources)
        .setAcceptoutputs(CAPABILITIES.acceptOutputs);
    },
    async check(req) {
      requireCluster(req.getType() || typeOf(req.getUrn()));
      const {
        plain: [olds, news],
        paths,
      } = inbound(req.getOlds(), req.getNews());
      const result = await check(ctx, { urn: req.getUrn(), olds, news, seed });
      if (result.failures.length === 0) waves.checked(req.getUrn());
      // A failure may quote the value it refuses.
      const failures = (result.failures ?? []).map((f) => ({ ...f, reason: redact(f.reason, secrets()) }));
      // Only a preview configures a provider under the unknown id, and a preview may return unknowns.
      if (seedIsProvisional && result.inputs.__autonamed === true) result.inputs.name = UNKNOWN;
      return checkResponse(markSecrets(result.inputs, paths), failures);
    },
    async diff(req) {
      const {
        plain: [olds, news],
      } = inbound(req.getOlds(), req.getNews());
      // Taken as they come until the requests are read by their rules.
      const d = await diff({
        id: req.getId(),
        urn: req.getUrn(),
        olds: olds as Partial<ClusterOutputs>,
        news: news as Previewed<ClusterInputs>,
      });
      if (!d.changes) waves.settled(req.getUrn());
      const resp = new proto.DiffResponse()
        .setChanges(d.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE)
        .setReplacesList(d.replaces)
        .setStablesList(d.stables)
        .setDiffsList(d.diffs)
        .setDeletebeforereplace(d.deleteBeforeReplace)
        .setHasdetaileddiff(true);
      for (const [prop, pd] of Object.entries(d.detailedDiff)) {
        resp.getDetaileddiffMap().set(prop, new proto.PropertyDiff().setKind(proto.PropertyDiff.Kind[pd.kind]).setInputdiff(pd.inputDiff));
      }
      return resp;
    },
    async create(req) {
      requireCluster(req.getType() || typeOf(req.getUrn()));
      const {
        plain: [inputs],
        paths,
      } = inbound(req.getProperties());
      const preview = req.getPreview();
      waves.settled(req.getUrn());
      if (!preview) refuseIfCancelled("creating the cluster");
      const result = await withInitFailure(
        () =>
          create(ctx, {
            urn: req.getUrn(),
            inputs: inputs as unknown as ClusterInputs,
            timeouts: timeouts("create", req.getTimeout()),
            preview,
          }),
        paths,
      );
      return new proto.CreateResponse().setId(result.id).setProperties(toStruct(markSecrets(result.outs, paths)));
    },
    async read(req) {
      // What the state holds secret stays secret in what the read records.
      const {
        plain: [props, oldInputs],
        paths,
      } = inbound(req.getProperties(), req.getInputs());
      // `pulumi import` reads with no properties at all: the cluster is looked up like `Cluster.get`,
      // so a wrong id fails naming it instead of importing nothing.
      const importing = Object.keys(props).length === 0;
      const result = await read(ctx, {
        id: req.getId(),
        urn: req.getUrn(),
        state: props,
        lookup: importing ? "pulumi import" : undefined,
      });
      const resp = new proto.ReadResponse().setId(result.id ?? "");
      if (!result.id) return resp;
      resp.setProperties(toStruct(markSecrets(result.props ?? {}, paths)));
      // A refresh keeps the program's inputs apart from what it corrects; an import starts from the cluster.
      const inputs = importing ? importedInputs(result.inputs ?? {}) : { ...oldInputs, ...pick(result.inputs ?? {}, UPDATABLE_PROPERTIES) };
      resp.setInputs(toStruct(markSecrets(inputs, paths)));
      return resp;
    },
    async update(req) {
      requireCluster(req.getType() || typeOf(req.getUrn()));
      const {
        plain: [olds, news],
        paths,
      } = inbound(req.getOlds(), req.getNews(), req.getOldInputs());
      const preview = req.getPreview();
      waves.settled(req.getUrn());
      if (!preview) refuseIfCancelled(`updating cluster ${req.getId()}`);
      const result = await withInitFailure(
        () =>
          update(ctx, {
            id: req.getId(),
            urn: req.getUrn(),
            olds: olds as unknown as ClusterOutputs,
            news: news as unknown as ClusterInputs,
            timeouts: timeouts("update", req.getTimeout()),
            preview,
          }),
        paths,
      );
      return new proto.UpdateResponse().setProperties(toStruct(markSecrets(result.outs, paths)));
    },
    async delete(req) {
      const {
        plain: [props],
      } = inbound(req.getProperties());
      refuseIfCancelled(`deleting cluster ${req.getId()}`);
      await deleteCluster(ctx, { id: req.getId(), urn: req.getUrn(), state: props, timeouts: timeouts("delete", req.getTimeout()) });
      return new empty.Empty();
    },
    async invoke(req) {
      const tok = req.getTok();
      const lookup = LOOKUPS[tok];
      if (!lookup) throw new InvalidArgumentError(`unknown function ${tok}: this plugin serves ${Object.keys(LOOKUPS).join(", ")}`);
      const {
        plain: [args],
      } = inbound(req.getArgs());
      const { connection: _connection, ...keys } = fromStruct(req.getArgs());
      const name = tok.replace(/^cms:index:/, "");
      const call = lookup(args);
      const explicit = dropEmpty((args.connection ?? {}) as ConnectionInputs);
      const connection = resolveConnection({ explicit, config: memory.configured, env: process.env, caller: "function" });
      const credential = tok === "cms:index:getKubeconfig" ? kubeconfigCredential(args.credential) : "static";
      const result = (await runLookup(name, connection, call)) as Record<string, unknown>;
      if (credential === "exec") {
        // The token recorded is only one the state holds already, encrypted: the call's own or the
        // provider's configuration (`cms:token`); one from CMS_TOKEN stays out, and the command
        // reads it from the environment the Kubernetes provider runs in, as kubernetesProvider's does.
        const recordedToken = [explicit.token, memory.configured.token].find((t) => t?.trim())?.trim();
        const target = { clusterId: String(result.clusterId), endpoint: connection.endpoint, recordedToken };
        result.kubeconfig = execKubeconfig(String(result.kubeconfig), target, pluginKubeconfigCommand());
      }
      // What a secret argument found is as secret as the argument (a secret id's cluster), and so
      // is any value a program gave this provider as a secret (the name of a cluster it made).
      const fromSecret = secretPaths(keys).length > 0;
      const marked = markValues(result, seen) as Record<string, unknown>;
      for (const k of Object.keys(marked)) if (fromSecret || SECRET_RESULTS[tok]?.includes(k)) marked[k] = secret(marked[k]);
      return new proto.InvokeResponse().setReturn(toStruct(marked));
    },
    async cancel() {
      // Ctrl-C: the engine lets the operations under way finish and starts no other. Their waits
      // end now; a create reports its cluster as not ready (an init failure with its id), so the
      // stack keeps it and the next `pulumi up` continues from it rather than creating another.
      ctx.cancel();
      return new empty.Empty();
    },
    async attach() {
      return new empty.Empty();
    },
  };
  return { handlers, secrets };

  function checkResponse(inputs: Record<string, unknown>, failures: Array<{ property: string; reason: string }>) {
    const resp = new proto.CheckResponse().setInputs(toStruct(inputs));
    resp.setFailuresList(failures.map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
    return resp;
  }
}

/** getKubeconfig's `credential`: `static` (the default, the kubeconfig as the service sends it) or `exec`. */
function kubeconfigCredential(value: unknown): "exec" | "static" {
  if (value === undefined || value === null || value === "static") return "static";
  if (value === "exec") return "exec";
  throw new InvalidArgumentError(`getKubeconfig: credential must be "exec" or "static", got ${JSON.stringify(value)}`);
}

/** The dynamic face's refusal of a plain `cms:token` in the stack configuration. */
function plainTokenMessage(token = "-"): string {
  return plainTokenRefusal(token, "[]") ?? "cms:token must be set with --secret";
}

/**
 * The refusal of a token given in plain text to the provider at `urn`. The default provider's
 * configuration is the stack's (`cms:token`); an explicit provider's token is the program's own
 * argument (the SDKs mark it secret; a YAML literal is not).
 */
function plainProviderToken(token: string, urn: string): string {
  const name = urn.split("::").pop() ?? "";
  if (urn === "" || /^default(_|$)/.test(name)) return plainTokenMessage(token);
  return (
    `the token of provider ${name} is given in plain text, so the stack's state would hold it unencrypted. ` +
    "Give it as a secret: from `pulumi config set --secret <key> <token>` read with `fn::secret`/`config.requireSecret`, " +
    "or leave it out and use the provider's `cms:token` configuration or `CMS_TOKEN`."
  );
}

/** The engine's older form of the configuration: `cms:config:<key>` to a string (JSON for non-strings). */
function variables(map: { forEach(fn: (value: string, key: string) => void): void }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  map.forEach((value, key) => {
    out[key.replace(/^cms:config:/, "")] = value;
  });
  return out;
}

/** The inputs a `pulumi import` records: the cluster's own values, nothing carried over. */
function importedInputs(inputs: object): Record<string, unknown> {
  return pick(inputs, CLUSTER_INPUT_PROPERTIES);
}

function pick(from: object, keys: readonly string[]): Record<string, unknown> {
  const bag = from as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => bag[k] !== undefined).map((k) => [k, bag[k]]));
}

/**
 * Run an operation; a cluster that exists but is not ready becomes the engine's "resource
 * initialization failed" (`main.ts`; the engine keeps it, with these properties, for the next run).
 */
async function withInitFailure<T>(op: () => Promise<T>, paths: readonly PropertyPath[]): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (e instanceof ClusterInitError) {
      throw new ClusterInitError(e.message, e.id, markSecrets(withoutPerRequest(e.properties), paths), e.reasons);
    }
    throw e;
  }
}
