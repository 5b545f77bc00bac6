/**
 * Without `--kubernetes` no Kubernetes API server stands behind a cluster, yet users hand its
 * kubeconfig to kubectl and `@pulumi/kubernetes`. So the kubeconfig's server is this path of the
 * emulator itself, which answers every request with one message naming the cause and the fix,
 * and that message is what kubectl and the Kubernetes resource plugin print.
 *
 * Why a 502 with a text body, not a Kubernetes `Status` object: client-go's discovery (the first
 * call of kubectl and of the plugin) reads answers as raw bytes and builds its error from the
 * status code alone, printing the server's text only for a text body and codes other than 503
 * (503 is always "the server is currently unable to handle the request"). 502 is what a gateway
 * with nothing behind it answers; client-go does not retry it (no `Retry-After`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Where the placeholder kubeconfigs point, under the emulator's own address. */
export const NO_KUBERNETES_PATH = "/_no-kubernetes";

const DOCS = "https://github.com/pulumi-cms/pulumi-cms/blob/main/packages/emulator/docs/kubernetes.md";
const CLUSTER_ID = /^cls_[0-9a-f]{16}$/;
/** A Host header this server can put in a URL as it is: a name or address, and a port. */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

/**
 * The answer to every request under {@link NO_KUBERNETES_PATH} while the emulator runs without
 * `--kubernetes`: the cause, and the whole way out, since a restart alone leaves the stack holding
 * this kubeconfig (and, without `--state`, clusters the restart lost). No double quotes: client-go
 * quotes it.
 */
export function noKubernetesMessage(clusterId: string): string {
  return (
    `${which(clusterId)} has no Kubernetes API server: cms-emulator was started without --kubernetes, so its clusters are records only. ` +
    `For clusters that run workloads, restart it as cms-emulator --kubernetes (with its --state FILE, if it has one, which keeps its clusters; ` +
    `otherwise they are lost), then run pulumi up --refresh, which gives each cluster its new kubeconfig or creates it again ` +
    `(on another port: pulumi config set cms:endpoint to its URL, then pulumi refresh --run-program and pulumi up) (see ${DOCS})`
  );
}

/**
 * The answer under {@link NO_KUBERNETES_PATH} once the emulator runs with `--kubernetes`: a
 * kubeconfig handed out before the restart (a stack's state holds it until a refresh) still points
 * here. Without this answer the path is an unknown route, and kubectl and the Kubernetes plugin
 * print only "the server could not find the requested resource".
 */
export function staleStandInMessage(clusterId: string): string {
  return (
    `${which(clusterId)} has no Kubernetes API server at this address: this kubeconfig was handed out while cms-emulator ran without --kubernetes, ` +
    `and it now runs with it. Run pulumi up --refresh (or pulumi refresh), which gives each cluster its new kubeconfig, or finds it gone ` +
    `(a restart without --state FILE loses the clusters) and creates it again; for kubectl, download the kubeconfig again (see ${DOCS})`
  );
}

function which(clusterId: string): string {
  return CLUSTER_ID.test(clusterId) ? `cluster ${clusterId}` : "this cluster";
}

/**
 * The kubeconfig server for `clusterId`: the address the client reached the emulator at (its Host
 * header), so the kubeconfig works wherever the API did; the connection's local address when the
 * header is absent or unusable (HTTP/1.0).
 */
export function noKubernetesServer(req: FastifyRequest, clusterId: string): string {
  const host = req.headers.host;
  let authority: string;
  if (host !== undefined && HOST.test(host)) authority = host;
  else {
    const address = req.socket.localAddress ?? "127.0.0.1";
    authority = `${address.includes(":") ? `[${address}]` : address}:${req.socket.localPort}`;
  }
  return `http://${authority}${NO_KUBERNETES_PATH}/${clusterId}`;
}

/**
 * Every method on every path under {@link NO_KUBERNETES_PATH}: 502 with the message, before the
 * body is read (kubectl sends YAML, protobuf and JSON patches, which the JSON parser would refuse).
 * Not counted, not authenticated, not rate limited: it stands for another server. `backed` says
 * whether the emulator runs with `--kubernetes` (then only an old kubeconfig comes here).
 */
export function registerNoKubernetesRoutes(app: FastifyInstance, backed: () => boolean): void {
  const answer = async (req: FastifyRequest, reply: FastifyReply) => {
    const clusterId = (req.params as { cluster_id?: string }).cluster_id ?? "";
    const message = backed() ? staleStandInMessage(clusterId) : noKubernetesMessage(clusterId);
    return reply.code(502).type("text/plain; charset=utf-8").send(message);
  };
  for (const url of [`${NO_KUBERNETES_PATH}/:cluster_id`, `${NO_KUBERNETES_PATH}/:cluster_id/*`]) {
    app.route({ method: app.supportedMethods, url, onRequest: answer, handler: answer });
  }
}
