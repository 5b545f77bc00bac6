/**
 * Property values between the engine's wire form and the core's plain objects.
 *
 * The engine marks a secret value as an object carrying a signature key, and an unknown value
 * (a preview's computed input) as a sentinel string. The core takes plain values, unknowns as the
 * sentinel (`provider/properties/unknown.ts`), and never sees a secret wrapper. What goes back to the engine
 * marks the token and the kubeconfig secret whatever came in, and every value that came in secret
 * secret again: the plugin tells the engine it accepts secrets, so the engine stores what it gets
 * back as it is (it restores markers by name only for providers that do not accept them).
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
 * The hidden inputs the dynamic face keeps in its state because its host passes none of them on
 * (`hosts/dynamic/requests.ts`): the URN, the timeouts, the serialized provider, and the markers
 * of `Cluster.get`, `import` and the program's read of the state. The native face has each from
 * the engine's request, so none is stored in its state, even one moved from the dynamic face.
 */
const PER_REQUEST = ["__urn", "__timeouts", "__provider", "__get", "__import", "__inState"] as const;

/** `props` without the per-request hidden properties. */
export function withoutPerRequest(props: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...props };
  for (const k of PER_REQUEST) delete out[k];
  return out;
}

/** A property's path from the top of a bag: `["connection", "token"]`. */
export type PropertyPath = readonly string[];

/** Outputs computed from inputs under other names: secret when any of their sources is. */
const DERIVED: Record<string, readonly string[]> = { nodeCount: ["workers", "controlPlanes"] };

/**
 * Where the engine's secret wrappers sit in `bags` (each a request's properties: the program's
 * inputs, the old ones, the state): the path of each outermost wrapper, through objects. An array
 * holding a secret counts as secret whole (its items may come back in another order), and so does
 * an output computed from a secret input (`DERIVED`).
 */
export function secretPaths(...bags: unknown[]): PropertyPath[] {
  const paths: PropertyPath[] = [];
  const walk = (value: unknown, at: string[]) => {
    if (isSecret(value)) paths.push(at);
    else if (Array.isArray(value)) {
      if (value.some(containsSecret)) paths.push(at);
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
    }
  };
  for (const bag of bags) if (bag !== null && typeof bag === "object" && !isSecret(bag)) walk(bag, []);
  for (const [output, sources] of Object.entries(DERIVED)) {
    if (paths.some((p) => sources.includes(p[0]))) paths.push([output]);
  }
  return paths;
}

/** Every string a secret wrapper in `bags` holds, at any depth: what messages must not show. */
export function secretStrings(...bags: unknown[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown, inSecret: boolean) => {
    if (isSecret(value)) walk(value.value, true);
    else if (typeof value === "string") {
      if (inSecret) out.push(value);
    } else if (value !== null && typeof value === "object") {
      for (const v of Object.values(value)) walk(v, inSecret);
    }
  };
  for (const bag of bags) walk(bag, false);
  return out;
}

/** `value` with every string among `secrets` in it marked secret, at any depth (a lookup's answer holding what a program gave as a secret). */
export function markValues(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (typeof value === "string") return secrets.has(value) ? secret(value) : value;
  if (isSecret(value)) return value;
  if (Array.isArray(value)) return value.map((v) => markValues(v, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markValues(v, secrets)]));
  }
  return value;
}

function containsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  return value !== null && typeof value === "object" && Object.values(value).some(containsSecret);
}

/**
 * Mark what must never be stored plain: the connection's token, the kubeconfig (in outputs), and
 * the value at each of `paths` (see {@link secretPaths}) where `props` has one. A path that meets a
 * plain value before its end marks that value whole, as the engine does.
 */
export function markSecrets(props: object, paths: readonly PropertyPath[] = []): Record<string, unknown> {
  const out = withoutPerRequest(props);
  const connection = out.connection as ClusterOutputs["connection"] | undefined;
  if (connection && typeof connection === "object" && !isSecret(connection) && connection.token !== undefined) {
    out.connection = { ...connection, token: secret(connection.token) };
  }
  if (out.kubeconfig !== undefined) out.kubeconfig = secret(out.kubeconfig);
  for (const path of paths) markAt(out, path);
  return out;
}

/** Mark the value at `path` in `bag` secret, copying the objects on the way rather than changing them. */
function markAt(bag: Record<string, unknown>, path: PropertyPath): void {
  const [key, ...rest] = path;
  if (key === undefined || bag[key] === undefined || isSecret(bag[key])) return;
  const value = bag[key];
  if (rest.length > 0 && value !== null && typeof value === "object" && !Array.isArray(value)) {
    const copy = { ...(value as Record<string, unknown>) };
    bag[key] = copy;
    markAt(copy, rest);
  } else {
    bag[key] = secret(value);
  }
}
