/** Shared set-up of the client's tests against the real emulator (in-process, random port). */
import { inspect } from "node:util";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../packages/emulator/src";
import { FAST_TIMINGS } from "./emulator";
import { type ClientRuntime, createClient, newClientRuntime, type ClientOptions, type CmsClient, type RetryInfo } from "../../src/client";

/** What the clients of {@link client} share, as the clients of one process do. */
let runtime: ClientRuntime = newClientRuntime();

/** The runtime the clients of {@link client} share now. */
export function clientRuntime(): ClientRuntime {
  return runtime;
}

export async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  // A fresh emulator restarts its rate windows: its clients start with limiters that know nothing.
  runtime = newClientRuntime();
  return startEmulator({ port: 0, ...FAST_TIMINGS, ...options });
}

/** A client with small backoff bounds that records its retries; it shares its limiter with the others of the emulator. */
export function client(emu: RunningEmulator, over: Partial<ClientOptions> = {}): CmsClient & { retries: RetryInfo[] } {
  const retries: RetryInfo[] = [];
  const c = createClient({
    endpoint: emu.url,
    token: emu.token,
    minRetryDelayMs: 10,
    maxRetryDelayMs: 50,
    settleWindowMs: 200,
    onRetry: (info) => retries.push(info),
    runtime,
    ...over,
  });
  return Object.assign(c, { retries });
}

export { rejection } from "./rejection";
export { waitForStatus } from "./emulator";

/** Every way an error can end up in a log or across a process boundary. */
export function everyFace(e: unknown): string {
  const err = e as Error;
  return [
    err.message,
    err.stack ?? "",
    String(err),
    JSON.stringify(err),
    JSON.stringify(Object.entries(err)),
    JSON.stringify(err, Object.getOwnPropertyNames(err)),
    inspect(err, { depth: 10, showHidden: true }),
  ].join("\n");
}

export const SMALL = { control_planes: 1, workers: 1, node_size: "small" } as const;

/**
 * A TCP relay in front of the real emulator that can lose a reply AFTER the emulator processed
 * the request: the situation a client must survive when a connection breaks mid-response. The
 * emulator's own `drop` fault cuts the connection before processing, so it cannot show this.
 * Nothing here answers requests itself: every request reaches the real emulator.
 */
export interface LossyProxy {
  url: string;
  /** Lose the reply of the next `count` requests whose request line starts with `prefix` (e.g. `POST /v1/clusters `). */
  loseReplyOf(prefix: string, count?: number): void;
  /** How many replies were lost since the last reset. */
  lost(): number;
  /** Forget pending rules and the count of lost replies. */
  reset(): void;
  close(): Promise<void>;
}

export async function lossyProxy(target: string): Promise<LossyProxy> {
  const net = await import("node:net");
  const { hostname, port } = new URL(target);
  const rules: Array<{ prefix: string; left: number }> = [];
  let lost = 0;
  const sockets = new Set<import("node:net").Socket>();
  const server = net.createServer((downstream) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(downstream);
    sockets.add(upstream);
    let loseNextReply = false;
    downstream.on("data", (chunk) => {
      const head = chunk.toString("latin1", 0, 64);
      const rule = rules.find((r) => r.left > 0 && head.startsWith(r.prefix));
      if (rule) {
        rule.left -= 1;
        loseNextReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (loseNextReply) {
        // The emulator has answered, so it has processed the request: now lose the answer.
        lost += 1;
        downstream.destroy();
        upstream.destroy();
        return;
      }
      downstream.write(chunk);
    });
    const end = () => {
      downstream.destroy();
      upstream.destroy();
      sockets.delete(downstream);
      sockets.delete(upstream);
    };
    downstream.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as import("node:net").AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    loseReplyOf: (prefix, count = 1) => rules.push({ prefix, left: count }),
    lost: () => lost,
    reset: () => {
      rules.length = 0;
      lost = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A plain node `http` server on loopback that answers every request with `handle`: a service
 * misbehaving on purpose (odd headers, inconsistent pages, huge bodies), for the real client.
 */
export interface ScriptedServer {
  url: string;
  /** `METHOD /path?query` of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function scriptedServer(
  handle: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void,
): Promise<ScriptedServer> {
  const http = await import("node:http");
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.on("error", () => {}); // a client that gives up mid-body is part of the script
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as import("node:net").AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answer `res` with `status` and a JSON body. */
export function sendJson(
  res: import("node:http").ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
