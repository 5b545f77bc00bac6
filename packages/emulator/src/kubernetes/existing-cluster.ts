/**
 * `--kubernetes-kubeconfig FILE`: a namespace per emulated cluster in a Kubernetes cluster the
 * user already runs (kind, minikube, k3d). Its kubeconfig's credential may do everything in that
 * namespace, and read namespaces; another emulated cluster's namespace is not its to read.
 * Node objects are not made: they would be the real cluster's.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";
import { type KubeConnection, kubeCall } from "./kube-api";
import type { ClusterPlacement, Placement } from "./placement";

/** What each kubeconfig's account may read beyond its namespace. */
const READER_ROLE = "cms-emulator-namespace-reader";
/** Label of everything made for an emulated cluster, for its removal. */
const CLUSTER_LABEL = "cms.example/cluster-id";

interface Named<T> {
  name: string;
  [key: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

/** The admin connection of the kubeconfig's current context. */
export function connectionFromKubeconfig(file: string): KubeConnection {
  const where = `--kubernetes-kubeconfig ${file}`;
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${where}: cannot read it as YAML (${(e as NodeJS.ErrnoException).code ?? "parse error"})`);
  }
  const base = dirname(resolve(file));
  const pick = <T>(list: unknown, name: unknown, what: string): T => {
    const found = (Array.isArray(list) ? (list as Array<Named<T>>) : []).find((e) => e.name === name);
    const value = found?.[what] as T | undefined;
    if (!value)
      throw new Error(`${where}: no ${what} named ${JSON.stringify(name)} (current-context ${JSON.stringify(doc["current-context"])})`);
    return value;
  };
  const context = pick<{ cluster: string; user: string }>(doc.contexts, doc["current-context"], "context");
  const cluster = pick<Record<string, string | boolean>>(doc.clusters, context.cluster, "cluster");
  const user = pick<Record<string, unknown>>(doc.users, context.user, "user");
  const data = (inline: unknown, path: unknown): string | undefined => {
    if (typeof inline === "string") return Buffer.from(inline, "base64").toString("utf8");
    if (typeof path === "string") return readFileSync(resolve(base, path), "utf8");
    return undefined;
  };
  if (user.exec !== undefined || user["auth-provider"] !== undefined) {
    throw new Error(
      `${where}: user ${JSON.stringify(context.user)} authenticates with an exec plugin or auth provider; use a context with a token or a client certificate (kind, minikube and k3d write one)`,
    );
  }
  const conn: KubeConnection = {
    server: String(cluster.server ?? ""),
    caPem: data(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    insecure: cluster["insecure-skip-tls-verify"] === true,
    token:
      typeof user.token === "string"
        ? user.token
        : typeof user.tokenFile === "string"
          ? readFileSync(resolve(base, user.tokenFile), "utf8").trim()
          : undefined,
    certPem: data(user["client-certificate-data"], user["client-certificate"]),
    keyPem: data(user["client-key-data"], user["client-key"]),
  };
  if (!/^https:\/\//.test(conn.server)) throw new Error(`${where}: cluster ${JSON.stringify(context.cluster)} has no https server`);
  if (!conn.caPem)
    throw new Error(
      `${where}: cluster ${JSON.stringify(context.cluster)} has no certificate-authority(-data); the kubeconfigs handed out must carry one`,
    );
  return conn;
}

export class ExistingCluster implements Placement {
  readonly scope = "namespace" as const;

  private constructor(
    private readonly admin: KubeConnection,
    readonly version: string,
  ) {}

  /** Checks the kubeconfig reaches its cluster and may make what each emulated cluster needs. */
  static async connect(kubeconfig: string): Promise<ExistingCluster> {
    const admin = connectionFromKubeconfig(kubeconfig);
    let version: string;
    try {
      const served = (await kubeCall(admin, "GET", "/version")).body as { gitVersion?: unknown } | undefined;
      // A distribution's suffix (`v1.33.1+k3s1`) is not part of the version the API reports.
      const found = typeof served?.gitVersion === "string" ? served.gitVersion.match(/^v\d+\.\d+\.\d+/)?.[0] : undefined;
      if (!found) throw new Error(`GET /version answered no gitVersion v<major>.<minor>.<patch>`);
      version = found;
      await kubeCall(
        admin,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        {
          metadata: { name: READER_ROLE },
          rules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] }],
        },
        [409],
      );
    } catch (e) {
      throw new Error(`--kubernetes-kubeconfig ${kubeconfig}: ${(e as Error).message}`);
    }
    return new ExistingCluster(admin, version);
  }

  async place(clusterId: string): Promise<ClusterPlacement> {
    const namespace = `cms-${clusterId.replace(/^cls_/, "").toLowerCase()}`;
    const labels = { [CLUSTER_LABEL]: clusterId };
    const admin = this.admin;
    const ready = (async () => {
      await kubeCall(admin, "POST", "/api/v1/namespaces", { metadata: { name: namespace, labels } }, [409]);
      await kubeCall(
        admin,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {
          metadata: { name: `${namespace}-reader`, labels },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: READER_ROLE },
          subjects: [{ kind: "Group", name: `system:serviceaccounts:${namespace}` }],
        },
        [409],
      );
      return { admin, caPem: admin.caPem ?? "" };
    })();
    return {
      endpoint: admin.server,
      namespace,
      ready,
      stop: async () => {
        await kubeCall(admin, "DELETE", `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${namespace}-reader`, undefined, [404]);
        await kubeCall(admin, "DELETE", `/api/v1/namespaces/${namespace}`, undefined, [404]);
      },
      suspend: async () => {},
    };
  }

  async close(): Promise<void> {}
}
