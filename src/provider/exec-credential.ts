/**
 * Kubeconfigs whose credential never goes stale: instead of the cluster's static token they carry
 * an `exec` credential plugin, `cms-kubeconfig exec-credential`, which downloads the cluster's
 * current kubeconfig from the service at each use and hands its credential to the client as a
 * `client.authentication.k8s.io/v1` ExecCredential (the way DigitalOcean's `doctl kubernetes
 * cluster kubeconfig exec-credential` or EKS's `aws eks get-token` work). A credential rotated in
 * the console is therefore picked up by the next command, with nothing to refresh by hand.
 *
 * For a Node.js project's stack (`kubernetesProvider`) the kubeconfig names no path of one
 * machine: the command is `node` (on PATH wherever a Node.js Pulumi program runs) and it loads
 * `pulumi-cms` from the directory it runs in, which the Kubernetes provider inherits from the
 * Pulumi CLI: the project's. The native plugin's (`getKubeconfig` with `credential: exec`), for
 * YAML and Go programs that have no such project, names the plugin's own executable instead
 * (`hosts/native/kubeconfig-command.ts`).
 *
 * In the provider core because both faces build these kubeconfigs: the surface's
 * `kubernetesProvider` and `cms-kubeconfig`, and the native host's `getKubeconfig`.
 */
import type * as Yaml from "yaml";
import type { CmsClient } from "../client";
import { UnauthorizedError } from "../client/errors";
import { redact } from "../client/redact";
import { ENV_ENDPOINT, ENV_TOKEN } from "../connection";
import { OperationError } from "../shared/errors/operation-error";

/** `yaml`, loaded on first use: a program that requires the package but never builds a kubeconfig does not load it. */
const yaml = () => require("yaml") as typeof Yaml;

/** The API version of the ExecCredential, in the kubeconfig and in the command's answer. */
export const EXEC_API_VERSION = "client.authentication.k8s.io/v1";

/**
 * The environment variable, set by the kubeconfig's `exec.env`, holding the token that the last
 * `pulumi up` resolved from an explicit `connection` or the stack configuration (both already in
 * the state, encrypted; the kubeconfig is a secret too). A token from `CMS_TOKEN` is never
 * recorded: the command reads it from its environment when it runs.
 */
export const ENV_RECORDED_TOKEN = "CMS_RECORDED_TOKEN";

/**
 * How long a client may use a credential before asking again. Clients also ask again on a 401,
 * so a rotation in the middle of a long run costs one refused request.
 */
export const CREDENTIAL_LIFETIME_MS = 5 * 60_000;

/**
 * The Kubernetes provider runs `node` with this script from the project's directory: it finds the
 * project's `pulumi-cms` (walking up `node_modules` as `require` does) and runs the command there.
 * Kept stable: it is part of the kubeconfig in each stack's state.
 */
export const PROJECT_BOOTSTRAP =
  'let m;try{m=require(require.resolve("pulumi-cms/package.json",{paths:[process.cwd()]}).slice(0,-12)+"dist/kubernetes/cli.js")}' +
  'catch(e){console.error("cms-kubeconfig: pulumi-cms is not installed in "+process.cwd()+" or above it (npm install pulumi-cms): "+e.message);process.exit(1)}' +
  "m.run(process.argv.slice(1)).then(c=>process.exit(c))";

/** How the kubeconfig's exec command is started. */
export interface ExecCommand {
  command: string;
  args: string[];
}

/** The command for a kubeconfig in a stack: `node` on PATH, the project's `pulumi-cms`. */
export function projectCommand(): ExecCommand {
  return { command: "node", args: ["-e", PROJECT_BOOTSTRAP, "--"] };
}

/** What the exec credential plugin needs to find the cluster. */
export interface ExecTarget {
  clusterId: string;
  /** The service's endpoint, recorded as an argument (not a secret). Else `CMS_ENDPOINT` when it runs. */
  endpoint?: string;
  /** A token recorded in the kubeconfig's `exec.env` (see {@link ENV_RECORDED_TOKEN}). */
  recordedToken?: string;
}

interface Kubeconfig {
  clusters?: Array<{ name?: unknown; cluster?: Record<string, unknown> }>;
  users?: Array<{ name?: unknown; user?: Record<string, unknown> }>;
  contexts?: Array<{ name?: unknown; context?: Record<string, unknown> }>;
  "current-context"?: unknown;
}

function parseKubeconfig(text: string, what: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new OperationError(`${what} is not YAML: ${(e as Error).message.split("\n")[0]}`, "invalid_response");
  }
  if (typeof doc !== "object" || doc === null || !Array.isArray((doc as Kubeconfig).contexts)) {
    throw new OperationError(`${what} is not a kubeconfig (no contexts)`, "invalid_response");
  }
  return doc as Kubeconfig;
}

/** The user entry of the kubeconfig's current context. */
function currentUser(doc: Kubeconfig, what: string): { name: unknown; user: Record<string, unknown> } {
  const context = doc.contexts?.find((c) => c.name === doc["current-context"]) ?? doc.contexts?.[0];
  const userName = context?.context?.user;
  const entry = doc.users?.find((u) => u.name === userName);
  if (!entry?.user) throw new OperationError(`${what} has no user for its current context`, "invalid_response");
  return { name: entry.name, user: entry.user };
}

/**
 * The cluster's kubeconfig with its user's static credential replaced by the exec plugin. The
 * rest (server, CA, context, namespace) is kept as the service wrote it, so the result changes
 * only when those do, not at a rotation.
 */
export function execKubeconfig(kubeconfig: string, target: ExecTarget, exec: ExecCommand = projectCommand()): string {
  const doc = parseKubeconfig(kubeconfig, `the kubeconfig of cluster ${target.clusterId}`);
  const { name } = currentUser(doc, `the kubeconfig of cluster ${target.clusterId}`);
  const args = [...exec.args, "exec-credential", target.clusterId, ...(target.endpoint ? ["--endpoint", target.endpoint] : [])];
  const plugin: Record<string, unknown> = {
    apiVersion: EXEC_API_VERSION,
    command: exec.command,
    args,
    interactiveMode: "Never",
    provideClusterInfo: false,
  };
  if (target.recordedToken) plugin.env = [{ name: ENV_RECORDED_TOKEN, value: target.recordedToken }];
  doc.users = (doc.users ?? []).map((u) => (u.name === name ? { name, user: { exec: plugin } } : u));
  return yaml().stringify(doc);
}

/** An ExecCredential's status: a bearer token, or a client certificate and key. */
export type CredentialStatus = { token: string } | { clientCertificateData: string; clientKeyData: string };

/** The credential of the current context's user of a kubeconfig the service sent. */
export function credentialOf(kubeconfig: string, clusterId: string): CredentialStatus {
  const what = `the kubeconfig the service sent for cluster ${clusterId}`;
  const { user } = currentUser(parseKubeconfig(kubeconfig, what), what);
  if (typeof user.token === "string" && user.token !== "") return { token: user.token };
  const cert = user["client-certificate-data"];
  const key = user["client-key-data"];
  if (typeof cert === "string" && typeof key === "string") {
    const pem = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    return { clientCertificateData: pem(cert), clientKeyData: pem(key) };
  }
  throw new OperationError(`${what} carries no token and no client certificate`, "invalid_response");
}

/** The ExecCredential for `credential`, valid for {@link CREDENTIAL_LIFETIME_MS} from `now`. */
export function execCredential(credential: CredentialStatus, now: number = Date.now()): object {
  return {
    apiVersion: EXEC_API_VERSION,
    kind: "ExecCredential",
    status: { ...credential, expirationTimestamp: new Date(now + CREDENTIAL_LIFETIME_MS).toISOString().replace(/\.\d{3}Z$/, "Z") },
  };
}

/** The endpoint and the tokens to try, in order, from the command's arguments and environment. */
export interface CredentialConnection {
  endpoint: string;
  /** The recorded token first (the one the last `up` used), then `CMS_TOKEN` when it differs. */
  tokens: string[];
}

const present = (v: string | undefined): v is string => typeof v === "string" && v.trim() !== "";

/**
 * The connection of the exec plugin: the recorded endpoint, else `CMS_ENDPOINT`; the recorded
 * token, else (or, when the service refuses it, next) `CMS_TOKEN`. The same order as the
 * provider's: what the last `pulumi up` resolved, then the environment.
 *
 * @throws OperationError naming what is missing and where it is looked for
 */
export function credentialConnection(endpoint: string | undefined, env: Record<string, string | undefined>): CredentialConnection {
  const url = [endpoint, env[ENV_ENDPOINT]].find(present);
  if (!url) {
    throw new OperationError(
      `no Cluster Management Service endpoint: the kubeconfig names none (--endpoint) and ${ENV_ENDPOINT} is not set`,
      "connection_not_configured",
    );
  }
  const tokens = [...new Set([env[ENV_RECORDED_TOKEN], env[ENV_TOKEN]].filter(present).map((t) => t.trim()))];
  if (tokens.length === 0) {
    throw new OperationError(
      // One message for both kubeconfigs: a saved one is kubectl's and holds no token, only the stack's records one.
      `no Cluster Management Service token: set ${ENV_TOKEN} in the environment of kubectl at each use ` +
        "(for the stack's Kubernetes provider, in pulumi's, or set `cms:token` in the stack configuration, as a secret, and run `pulumi up`, which records it in the provider's kubeconfig)",
      "connection_not_configured",
    );
  }
  return { endpoint: url, tokens };
}

/**
 * The cluster's current kubeconfig, downloaded with the first token the service accepts (a
 * refused one, 401, passes to the next). Errors name the cluster and never a token.
 */
export async function currentKubeconfig(
  clusterId: string,
  connection: CredentialConnection,
  clientFor: (token: string) => CmsClient,
): Promise<string> {
  let lastError: unknown;
  for (const token of connection.tokens) {
    try {
      return await clientFor(token).getKubeconfig(clusterId);
    } catch (e) {
      lastError = e;
      if (!(e instanceof UnauthorizedError)) break;
    }
  }
  const message = redact(lastError instanceof Error ? lastError.message : String(lastError), connection.tokens);
  throw new OperationError(`cluster ${clusterId} on ${connection.endpoint}: ${message}`);
}
