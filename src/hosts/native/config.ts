/**
 * The provider's own configuration (`cms:endpoint`, `cms:token`, and the stack's auto-name seed
 * `__seed` it keeps beside them): the engine's CheckConfig, DiffConfig and Configure requests read
 * into what the plugin keeps, with the rules a configuration must follow.
 */
import { randomBytes } from "node:crypto";
import { type ConnectionInputs, dropEmpty } from "../../connection";
import { plainTokenRefusal } from "../../connection/plain-token";
import { SEED_PATTERN } from "../../provider/naming/auto-name";
import type { CheckFailure } from "../../provider/operations/results";
import { UNKNOWN } from "../../provider/properties/unknown";
import { InvalidArgumentError } from "../../shared/errors/invalid-argument-error";
import { fromStruct, reveal, secret } from "./properties";
import type { StructLike } from "./requests";
import { stackFileHoldsPlainToken } from "./stack-config-file";

/** The members of the engine's CheckConfig request read here. */
export interface CheckConfigRpc {
  getUrn(): string;
  getOlds(): StructLike | undefined;
  getNews(): StructLike | undefined;
}

/** The members of the engine's Configure request read here (`getUrn`, `hasId`: newer engines only). */
export interface ConfigureRpc {
  getArgs(): StructLike | undefined;
  getVariablesMap(): { forEach(fn: (value: string, key: string) => void): void };
  getAcceptsecrets(): boolean;
  getUrn?(): string;
  hasId?(): boolean;
  getId(): string;
}

/** The keys of the configuration this plugin reads, each a string. */
const CONFIG_KEYS = ["endpoint", "token"] as const satisfies readonly (keyof ConnectionInputs)[];

/**
 * CheckConfig: the configuration as the engine is to record it, with the stack's seed, and what
 * is wrong with it. The engine sends it with secrets revealed and marks secret again what it sent
 * as one. A new or changed token goes back as it came, so that a plain one, from wherever the
 * configuration came, reaches configure plain and is refused there (the engine records nothing of
 * a provider it could not create or update). An unchanged one is marked here: the engine records
 * it before configure, and the state must never hold it plain.
 */
export function checkedConfig(req: CheckConfigRpc, drawnSeeds: Set<string>): { inputs: Record<string, unknown>; failures: CheckFailure[] } {
  const news = fromStruct(req.getNews());
  const olds = fromStruct(req.getOlds());
  const failures: CheckFailure[] = [];
  for (const key of CONFIG_KEYS) {
    const v = reveal(news[key]);
    if (v !== undefined && v !== UNKNOWN && typeof v !== "string") failures.push({ property: key, reason: `${key} must be a string` });
  }
  // No property named: the engine would print its value with the reason.
  if (typeof news.token === "string" && stackFileHoldsPlainToken(req.getUrn()))
    failures.push({ property: "", reason: plainTokenMessage(req.getUrn()) });
  const token = news.token === undefined || olds.token !== news.token ? news.token : secret(news.token);
  const inputs = { ...news, ...(token !== undefined ? { token } : {}), __seed: stackSeed(olds, drawnSeeds) };
  return { inputs, failures };
}

/** DiffConfig: whether the connection changed (where the service is and which token reaches it are not what the clusters are made of). */
export function configChanged(req: { getOlds(): StructLike | undefined; getNews(): StructLike | undefined }): boolean {
  const olds = configured(fromStruct(req.getOlds()));
  const news = configured(fromStruct(req.getNews()));
  return olds.endpoint !== news.endpoint || olds.token !== news.token;
}

/** What Configure gives the provider. */
export interface Configuration {
  /** The connection settings, secrets revealed. */
  connection: ConnectionInputs;
  /** The stack's auto-name seed, when the configuration holds one. */
  seed: string | undefined;
  /**
   * The engine configures a provider it is only previewing the creation of under the unknown id:
   * the seed drawn for it is not the one `up` records (each run draws its own), so neither is an
   * auto-name derived from it.
   */
  seedIsProvisional: boolean;
}

/**
 * Configure: the connection and the seed. With secrets accepted, a token set without `--secret`
 * arrives plain: Pulumi.<stack>.yaml holds it unencrypted. Refused before any call, as the dynamic
 * face refuses it, naming the fix.
 */
export function configuration(req: ConfigureRpc): Configuration {
  const args = req.getArgs() ? fromStruct(req.getArgs()) : variables(req.getVariablesMap());
  if (req.getArgs() && req.getAcceptsecrets() && typeof args.token === "string" && args.token !== UNKNOWN) {
    throw new InvalidArgumentError(plainProviderToken(req.getUrn?.() ?? ""));
  }
  return {
    connection: configured(args),
    seed: typeof args.__seed === "string" ? args.__seed : undefined,
    seedIsProvisional: typeof req.hasId === "function" && req.hasId() && req.getId() === UNKNOWN,
  };
}

/**
 * The stack's auto-name seed, kept in the provider's own inputs (`__seed`): drawn once, when the
 * provider is first checked, and read back from the state by every later run. The engine's own
 * random seed is new on every run, so a create killed before it reported its cluster would be
 * re-created under another name; with this one the next run derives the same name and takes over
 * the cluster it finds (`provider/naming/adoption.ts`), as the dynamic face does with its seed resource.
 */
function stackSeed(olds: Record<string, unknown>, drawnSeeds: Set<string>): string {
  if (typeof olds.__seed === "string" && SEED_PATTERN.test(olds.__seed)) return olds.__seed;
  const seed = randomBytes(16).toString("hex");
  // New to the stack: no earlier run can have made a cluster with a name derived from it.
  drawnSeeds.add(seed);
  return seed;
}

/** The connection settings in a provider configuration, secrets revealed. */
function configured(props: Record<string, unknown>): ConnectionInputs {
  const plain = reveal(props) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return dropEmpty({ endpoint: text(plain.endpoint), token: text(plain.token) });
}

/** The dynamic face's refusal of a plain `cms:token` in the stack configuration of the provider at `urn`. */
function plainTokenMessage(urn: string): string {
  const stack = /^urn:pulumi:([^:]+)::/.exec(urn)?.[1];
  return plainTokenRefusal("-", "[]", stack) ?? "cms:token must be set with --secret";
}

/**
 * The refusal of a token given in plain text to the provider at `urn`. The default provider's
 * configuration is the stack's (`cms:token`); an explicit provider's token is the program's own
 * argument (the SDKs mark it secret; a YAML literal is not).
 */
function plainProviderToken(urn: string): string {
  const name = urn.split("::").pop() ?? "";
  if (urn === "" || /^default(_|$)/.test(name)) return plainTokenMessage(urn);
  return (
    `the token of provider ${name} is given in plain text, so the stack's state would hold it unencrypted. ` +
    "Give it as a secret: from `pulumi config set --secret <key> <token>` read with `fn::secret`/`config.requireSecret`, " +
    "or leave it out and use the provider's `cms:token` configuration or `CMS_TOKEN`."
  );
}

/** The engine's older form of the configuration: `cms:config:<key>` to a string (JSON for non-strings). */
function variables(map: ReturnType<ConfigureRpc["getVariablesMap"]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  map.forEach((value, key) => {
    out[key.replace(/^cms:config:/, "")] = value;
  });
  return out;
}
