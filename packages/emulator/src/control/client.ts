/**
 * {@link EmulatorControl} over HTTP: drives an emulator in another process (a Pulumi
 * program, a CLI run, a benchmark) through its `/_emulator/` routes.
 */
import type { ApiCluster } from "@pulumi-cms/contract";
import type { AddedToken, EmulatorControl, FaultSpec, NewTokenSpec, Timings } from "../types";

/** A control-API call that failed; carries the emulator's `{error, message}`. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = "ControlError";
  }

  /** Same as {@link status}, the name the in-process control's ServiceError uses. */
  get statusCode(): number {
    return this.status;
  }
}

/**
 * A control client for the emulator at `url` (`http://HOST:PORT`, as in
 * `RunningEmulator.url`), authenticated with its admin token.
 */
export function controlClient(url: string, adminToken: string): EmulatorControl {
  const base = url.replace(/\/+$/, "");
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}/_emulator${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      let code = "unknown";
      let message = text;
      try {
        const parsed = JSON.parse(text) as { error?: string; message?: string };
        code = parsed.error ?? code;
        message = parsed.message ?? text;
      } catch {
        // Not JSON: keep the raw text.
      }
      throw new ControlError(res.status, code, message);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const cluster = (id: string) => `/clusters/${encodeURIComponent(id)}`;
  return {
    reset: () => call("POST", "/reset"),
    injectFault: (f: FaultSpec) => call("POST", "/faults", f),
    clearFaults: () => call("DELETE", "/faults"),
    failNext: (operation) => call("POST", "/fail-next", { operation }),
    scale: (id, workers) => call("POST", `${cluster(id)}/scale`, { workers }),
    resize: (id, nodeSize) => call("POST", `${cluster(id)}/resize`, { node_size: nodeSize }),
    upgrade: (id, version) => call("POST", `${cluster(id)}/upgrade`, { kubernetes_version: version }),
    deleteCluster: (id) => call("DELETE", cluster(id)),
    rotateKubeconfig: (id) => call("POST", `${cluster(id)}/rotate-kubeconfig`),
    requestCounts: () => call("GET", "/request-counts"),
    resetRequestCounts: () => call("DELETE", "/request-counts"),
    addToken: async (t: NewTokenSpec) => {
      const { added: _, ...token } = await call<AddedToken & { added: true }>("POST", "/tokens", t);
      return token;
    },
    revokeToken: async (token: string) => {
      await call("DELETE", "/tokens", { token });
    },
    setTimings: async (t: Timings) => {
      await call("PATCH", "/timings", t);
    },
    clusters: async () => (await call<{ items: ApiCluster[] }>("GET", "/clusters")).items,
  };
}
