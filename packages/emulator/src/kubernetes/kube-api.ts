/**
 * The few Kubernetes API calls the emulator makes itself (service accounts, tokens, role
 * bindings, nodes), over HTTPS with the CA and credential of a {@link KubeConnection}.
 */
import { request } from "node:https";

/** How the emulator reaches an API server: its own admin access, never handed out. */
export interface KubeConnection {
  /** `https://host:port`. */
  server: string;
  /** PEM of the CA(s) the server's certificate chains to. */
  caPem?: string;
  /** Skip verification of the server's certificate (a kubeconfig's `insecure-skip-tls-verify`). */
  insecure?: boolean;
  token?: string;
  /** PEM client certificate and key (kind, minikube, k3d kubeconfigs). */
  certPem?: string;
  keyPem?: string;
}

/** An answer of the API server. */
export interface KubeResponse {
  status: number;
  body: unknown;
}

/** A non-2xx answer, with the server's own message. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    method: string,
    path: string,
    detail: string,
  ) {
    super(`Kubernetes API ${method} ${path}: ${status} ${detail}`);
    this.name = "KubeApiError";
  }
}

/** One request; resolves with any status (the caller decides which are errors). */
export function kubeRequest(
  conn: KubeConnection,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<KubeResponse> {
  const url = new URL(path, conn.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: conn.caPem,
        rejectUnauthorized: !conn.insecure,
        cert: conn.certPem,
        key: conn.keyPem,
        timeout: 30_000,
        headers: {
          accept: "application/json",
          ...(conn.token ? { authorization: `Bearer ${conn.token}` } : {}),
          ...(payload !== undefined ? { "content-type": contentType, "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = text === "" ? undefined : JSON.parse(text);
          } catch {
            // plain text (e.g. /readyz)
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`Kubernetes API ${method} ${path}: no answer within 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** {@link kubeRequest} that rejects unless the status is 2xx or one of `accept`. */
export async function kubeCall(
  conn: KubeConnection,
  method: string,
  path: string,
  body?: unknown,
  accept: number[] = [],
  contentType?: string,
): Promise<KubeResponse> {
  const res = await kubeRequest(conn, method, path, body, contentType);
  if ((res.status >= 200 && res.status < 300) || accept.includes(res.status)) return res;
  const message = (res.body as { message?: string } | undefined)?.message ?? (typeof res.body === "string" ? res.body.slice(0, 200) : "");
  throw new KubeApiError(res.status, method, path, message);
}
