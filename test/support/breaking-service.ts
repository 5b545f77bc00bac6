/**
 * A small service on loopback that keeps the wire contract in every answer but the ones a test
 * breaks: one cluster, created by POST, `provisioning` for its first polls and `running` after,
 * with its nodes and kubeconfig. `reply` sees each good answer and may replace it (another body,
 * status or headers), which is how a test breaks the contract in exactly one way.
 */
import { scriptedServer, type ScriptedServer } from "./client";

/** Which answer: the create, a GET or PATCH of the cluster, the list, the nodes, one node, the kubeconfig, the delete. */
export type AnswerKind = "create" | "get" | "patch" | "list" | "nodes" | "node" | "kubeconfig" | "delete" | "other";

/** One answer: a JSON body (an object), or a string sent as it is. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface BreakingService extends ScriptedServer {
  /** The id the POST answers (when not broken). */
  readonly id: string;
  readonly token: string;
}

export const SERVICE_TOKEN = "tok_breaking_service_0123456789";
const ID = "cls_00000000000000aa";
const NODE = "node_00000000000000b1";

/** The kubeconfig the service answers: the least the contract takes (a cluster with a server, a user, a context). */
export const KUBECONFIG = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "  - name: web",
  "    cluster:",
  "      server: https://10.0.0.1:6443",
  "users:",
  "  - name: web-admin",
  "    user:",
  "      token: kube-token-of-web",
  "contexts:",
  "  - name: admin@web",
  "    context:",
  "      cluster: web",
  "      user: web-admin",
  "current-context: admin@web",
  "",
].join("\n");

/**
 * @param reply replaces a good answer: return the reply to send instead, or undefined to send it
 * @param runningAfter how many GETs of the cluster answer `provisioning` before `running`
 */
export async function breakingService(
  reply: (kind: AnswerKind, good: Reply, count: number) => Reply | undefined = () => undefined,
  runningAfter = 1,
): Promise<BreakingService> {
  let created: Record<string, unknown> | undefined;
  const counts = new Map<AnswerKind, number>();
  let gets = 0;
  const cluster = () => ({
    ...(created as Record<string, unknown>),
    status: gets > runningAfter ? "running" : "provisioning",
    node_count: 2,
    endpoint: "https://10.0.0.1:6443",
    kubernetes_version: "v1.30.4",
    updated_at: "2026-01-01T00:00:00.000Z",
    infra_id: null,
  });
  const node = {
    id: NODE,
    cluster_id: ID,
    name: "n-cp-1",
    role: "controlplane",
    status: "ready",
    node_size: "small",
    ip_address: "10.1.0.2",
    kubernetes_version: "v1.30.4",
    talos_version: "v1.7.6",
    created_at: "2026-01-01T00:00:00.000Z",
  };
  const good = (kind: AnswerKind, body: Record<string, unknown>): Reply => {
    if (kind === "create") {
      created = {
        id: ID,
        name: body.name,
        status: "provisioning",
        phase: body.phase ?? "managed",
        control_planes: body.control_planes,
        workers: body.workers,
        node_size: body.node_size,
        created_at: "2026-01-01T00:00:00.000Z",
      };
      return { status: 201, body: created };
    }
    if (kind === "get") {
      gets += 1;
      return created ? { status: 200, body: cluster() } : notFound();
    }
    if (kind === "patch") {
      if (!created) return notFound();
      created = { ...created, ...body };
      return { status: 200, body: { ...cluster(), status: "scaling" } };
    }
    if (kind === "list") {
      const items = created ? [cluster()] : [];
      return { status: 200, body: { items, total: items.length, page: 1, per_page: 100 } };
    }
    if (kind === "nodes") return { status: 200, body: { items: [node], total: 1 } };
    if (kind === "node") return { status: 200, body: node };
    if (kind === "kubeconfig") return { status: 200, body: KUBECONFIG };
    if (kind === "delete") {
      created = undefined;
      return { status: 204, body: "" };
    }
    return notFound();
  };
  const server = await scriptedServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => {
      if (req.headers.authorization !== `Bearer ${SERVICE_TOKEN}`)
        return send(res, { status: 401, body: { error: "unauthorized", message: "no" } });
      const kind = kindOf(req.method ?? "GET", (req.url ?? "/").split("?")[0]);
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      let body: Record<string, unknown> = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        // a request body is the client's: it is always JSON
      }
      const fine = good(kind, body);
      send(res, reply(kind, fine, n) ?? fine);
    });
  });
  return Object.assign(server, { id: ID, token: SERVICE_TOKEN });
}

function notFound(): Reply {
  return { status: 404, body: { error: "not_found", message: "no such cluster" } };
}

function kindOf(method: string, path: string): AnswerKind {
  if (path === "/v1/clusters") return method === "POST" ? "create" : "list";
  if (/^\/v1\/clusters\/[^/]+$/.test(path)) return method === "DELETE" ? "delete" : method === "PATCH" ? "patch" : "get";
  if (/^\/v1\/clusters\/[^/]+\/kubeconfig$/.test(path)) return "kubeconfig";
  if (/^\/v1\/clusters\/[^/]+\/nodes$/.test(path)) return "nodes";
  if (/^\/v1\/clusters\/[^/]+\/nodes\/[^/]+$/.test(path)) return "node";
  return "other";
}

function send(res: import("node:http").ServerResponse, r: Reply): void {
  const isText = typeof r.body === "string";
  res.writeHead(r.status, { "content-type": isText ? "text/plain" : "application/json", ...r.headers });
  res.end(isText ? r.body : JSON.stringify(r.body));
}

/** Every path the service was asked for names only ids of their documented shape. */
export const WELL_SHAPED_PATH = /^\/v1\/clusters(\/cls_[A-Za-z0-9_-]+(\/kubeconfig|\/nodes(\/node_[A-Za-z0-9_-]+)?)?)?$/;
