/**
 * Kubeconfig rendering. The file is a real kubeconfig (clusters, users, contexts,
 * current-context) that `kubectl config view` accepts; its server is the cluster's endpoint
 * and its user authenticates with a bearer token that changes only on rotation.
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

/** YAML text of the cluster's kubeconfig. */
export function renderKubeconfig(c: ClusterRecord): string {
  const user = `${c.name}-admin`;
  const context = `admin@${c.name}`;
  // Without a real API server: a syntactically valid PEM wrapper around random bytes, which
  // clients that only decode it accept.
  const pem =
    c.kubeconfig.caPem ??
    `-----BEGIN CERTIFICATE-----\n${Buffer.from(c.kubeconfig.ca, "hex").toString("base64")}\n-----END CERTIFICATE-----\n`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: quoted(c.name),
        cluster: { server: c.endpoint, "certificate-authority-data": Buffer.from(pem).toString("base64") },
      },
    ],
    users: [{ name: user, user: { token: c.kubeconfig.token } }],
    contexts: [{ name: context, context: { cluster: quoted(c.name), user, namespace: c.kubeconfig.namespace ?? "default" } }],
    "current-context": context,
    preferences: {},
  });
}
