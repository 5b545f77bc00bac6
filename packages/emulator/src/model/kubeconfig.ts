/**
 * Kubeconfig rendering. The file is a real kubeconfig (clusters, users, contexts,
 * current-context) that `kubectl config view` accepts; its user authenticates with a bearer
 * token that changes only on rotation. Its server is the cluster's endpoint, or, when no API
 * server stands behind the cluster (no `--kubernetes`), the emulator's stand-in that says so
 * (http/no-kubernetes.ts).
 */
import { Scalar, stringify } from "yaml";
import type { ClusterRecord } from "./records";

/**
 * The cluster name as a double-quoted YAML scalar: a cluster may be named `yes`, `off`, `0b101`
 * or `0o17` (all valid names), which YAML 1.1 readers (kubectl's) or 1.2 readers would
 * otherwise take for a boolean or a number. (The other values cannot be mistaken.)
 */
function quoted(value: string): Scalar<string> {
  const node = new Scalar(value);
  node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

/**
 * YAML text of the cluster's kubeconfig.
 *
 * @param standIn the server to name instead of the endpoint: a plain-HTTP URL, so the kubeconfig
 *   carries no CA (clients that parse a CA whatever the scheme would fail on it, not on the cause)
 */
export function renderKubeconfig(c: ClusterRecord, standIn?: string): string {
  const user = `${c.name}-admin`;
  const context = `admin@${c.name}`;
  let cluster: Record<string, string>;
  if (standIn !== undefined) cluster = { server: standIn };
  else {
    // Until a real API server's CA is recorded: a syntactically valid PEM wrapper around random bytes.
    const pem =
      c.kubeconfig.caPem ??
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(c.kubeconfig.ca, "hex").toString("base64")}\n-----END CERTIFICATE-----\n`;
    cluster = { server: c.endpoint, "certificate-authority-data": Buffer.from(pem).toString("base64") };
  }
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: quoted(c.name), cluster }],
    users: [{ name: user, user: { token: c.kubeconfig.token } }],
    contexts: [{ name: context, context: { cluster: quoted(c.name), user, namespace: c.kubeconfig.namespace ?? "default" } }],
    "current-context": context,
    preferences: {},
  });
}
