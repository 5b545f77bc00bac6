/**
 * Property values between the engine's wire form and the core's plain objects.
 *
 * The engine marks a secret value as an object carrying a signature key, and an unknown value
 * (a preview's computed input) as a sentinel string. The core takes plain values, unknowns as the
 * sentinel (`provider/unknown.ts`), and never sees a secret wrapper; what goes back to the engine
 * marks the token and the kubeconfig secret whatever came in, so neither is ever stored plain.
 */
import type { ClusterOutputs } from "../../provider/types";

/** The key that marks a special value, and its value for a secret (the engine's protocol). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** True when `value` is the engine's secret wrapper. */
export function isSecret(value: unknown): value is { value: unknown } {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** `value` as the engine's secret. */
export function secret(value: unknown): unknown {
  return value === undefined || isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/** `value` with every secret wrapper removed, deeply. */
export function reveal(value: unknown): unknown {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  }
  return value;
}

/** A struct's properties as a plain object (`{}` for none: the engine sends nil on `pulumi import`). */
export function fromStruct(struct: { toJavaScript(): Record<string, unknown> } | undefined): Record<string, unknown> {
  return (struct?.toJavaScript() ?? {}) as Record<string, unknown>;
}

/**
 * The hidden properties the dynamic face carries as inputs because its host does not pass them
 * on. The native face gets each from the engine's request instead, so none is stored in its
 * state: the URN, the timeouts, the serialized provider, and the markers of `Cluster.get`,
 * `import` and the program's read of the state.
 */
const PER_REQUEST = ["__urn", "__timeouts", "__provider", "__get", "__import", "__inState"] as const;

/** `props` without the per-request hidden properties. */
export function withoutPerRequest(props: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...props };
  for (const k of PER_REQUEST) delete out[k];
  return out;
}

/** Mark what must never be stored plain: the connection's token and (in outputs) the kubeconfig. */
export function markSecrets(props: object): Record<string, unknown> {
  const out = withoutPerRequest(props);
  const connection = out.connection as ClusterOutputs["connection"] | undefined;
  if (connection && typeof connection === "object" && connection.token !== undefined) {
    out.connection = { ...connection, token: secret(connection.token) };
  }
  if (out.kubeconfig !== undefined) out.kubeconfig = secret(out.kubeconfig);
  return out;
}
