/**
 * Keeping the kubeconfig text stable. Every read downloads the kubeconfig again, but a new text
 * for the same credentials (reordered keys, a regenerated comment) would change the output and
 * make everything built from it (a Kubernetes provider, its resources) update or be replaced.
 * So the stored text is kept unless what it grants access to actually changed. Pure.
 */
import type * as Yaml from "yaml";

/**
 * The parts of a kubeconfig that decide where and as whom it connects: each cluster's server
 * and CA, each user's credentials, the contexts and the current context. Key order and
 * formatting are normalised away. Returns undefined when the text is not a YAML mapping.
 */
export function kubeconfigIdentity(text: string): string | undefined {
  let doc: unknown;
  try {
    // Loaded only when two texts differ: a read that downloads the kubeconfig it has parses nothing.
    doc = (require("yaml") as typeof Yaml).parse(text);
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return undefined;
  const d = doc as Record<string, unknown>;
  const named = (list: unknown, field: string) =>
    (Array.isArray(list) ? list : [])
      .map((e) => (e && typeof e === "object" ? (e as Record<string, unknown>) : {}))
      .map((e) => ({ name: e.name, [field]: e[field] }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return canonicalJson({
    clusters: named(d.clusters, "cluster"),
    users: named(d.users, "user"),
    contexts: named(d.contexts, "context"),
    currentContext: d["current-context"],
  });
}

/**
 * The kubeconfig text to store after a read: the previous text when it grants exactly the same
 * access as the freshly downloaded one, otherwise the fresh text.
 */
export function chooseKubeconfig(previous: string | undefined, fresh: string): string {
  if (previous === undefined || previous === null || previous === fresh) return fresh;
  const before = kubeconfigIdentity(previous);
  const after = kubeconfigIdentity(fresh);
  return before !== undefined && before === after ? previous : fresh;
}

/** JSON with object keys sorted at every level, so equal structures give equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as object).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
