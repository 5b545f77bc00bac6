/**
 * `--kubernetes`: one real kube-apiserver per emulated cluster, all on one etcd (each under its
 * own `--etcd-prefix`), so that what one cluster's kubeconfig creates no other cluster sees; with
 * it, the components that make the cluster run workloads (workloads.ts).
 *
 * Each API server sits behind a TCP listener of the emulator's: the listener exists from the
 * moment the cluster is created (so the create answer can carry the endpoint), holds connections
 * until the API server is up, and closes when the cluster is gone.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type Server, type Socket, connect, createServer } from "node:net";
import { join } from "node:path";
import { type KubernetesBinaries, servedVersion } from "./binaries";
import { type KubeConnection, kubeRequest } from "./kube-api";
import type { ClusterPlacement, Placement } from "./placement";
import { type TiedProcess, freePort, logTail, spawnTied, waitUntil } from "./processes";
import { type Workloads, startWorkloads } from "./workloads";

/** How long a start may take before the cluster's kubeconfig requests fail. */
const START_TIMEOUT_MS = 120_000;
/**
 * The API server's Go memory settings. Most of its resident memory is collectable heap: with Go's
 * default (GOGC=100) the heap grows to twice what is live before a collection. A collection at
 * half that growth, and a soft limit past which the collector works harder (GOMEMLIMIT, counted
 * on the Go heap and runtime, not the program's text), keep an emulated cluster's API server
 * smaller for a little more collector CPU (docs/benchmarks.md, Real Kubernetes behind the
 * emulator). The soft limit only trims: a cluster that holds more stays correct.
 */
const APISERVER_GO_MEMORY = { GOGC: "50", GOMEMLIMIT: "150MiB" };
/**
 * etcd's Go collector: the one etcd holds every cluster's keys, and with Go's default (GOGC=100)
 * its heap grows to twice what is live between collections; at 50 it takes a few MiB less per
 * cluster (docs/benchmarks.md, Memory per cluster) for a little more collector CPU.
 */
const ETCD_GO_MEMORY = { GOGC: "50" };
/** Port retries when a free port was taken between picking and binding it. */
const PORT_ATTEMPTS = 3;

export class LocalControlPlanes implements Placement {
  readonly scope = "cluster" as const;
  readonly version: string;
  private etcd?: { proc: TiedProcess; url: string };
  private etcdStarting?: Promise<string>;

  /**
   * @param binaries the programs to run
   * @param dataDir etcd's data and one directory per cluster (certificates, keys, logs)
   * @param durable whether etcd syncs its writes (off for a data directory that dies with the emulator)
   */
  constructor(
    private readonly binaries: KubernetesBinaries,
    private readonly dataDir: string,
    private readonly durable: boolean,
  ) {
    this.version = servedVersion(binaries.apiserver);
  }

  private etcdUrl(): Promise<string> {
    this.etcdStarting ??= this.startEtcd();
    return this.etcdStarting;
  }

  private async startEtcd(): Promise<string> {
    mkdirSync(this.dataDir, { recursive: true });
    let lastError: unknown;
    for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      const [client, peer] = [await freePort(), await freePort()];
      const url = `http://127.0.0.1:${client}`;
      const peerUrl = `http://127.0.0.1:${peer}`;
      const proc = spawnTied(
        this.binaries.etcd,
        [
          "--name=cms",
          `--data-dir=${join(this.dataDir, "etcd")}`,
          `--listen-client-urls=${url}`,
          `--advertise-client-urls=${url}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=cms=${peerUrl}`,
          ...(this.durable ? [] : ["--unsafe-no-fsync"]),
        ],
        join(this.dataDir, "etcd.log"),
        ETCD_GO_MEMORY,
      );
      try {
        await waitUntil("etcd", async () => (await fetch(`${url}/health`)).ok, { process: proc, timeoutMs: 30_000 });
        this.etcd = { proc, url };
        return url;
      } catch (e) {
        lastError = e;
        await proc.stop(1000);
      }
    }
    throw new Error(`etcd did not start: ${(lastError as Error).message}; its log ends:\n${logTail(join(this.dataDir, "etcd.log"))}`);
  }

  async place(clusterId: string, endpoint: string | undefined): Promise<ClusterPlacement> {
    const dir = join(this.dataDir, clusterId);
    mkdirSync(join(dir, "certs"), { recursive: true });
    // Kept across restarts (with --state): the tokens handed out stay valid.
    const adminToken = fileOnce(join(dir, "admin-token"), () => randomBytes(24).toString("hex"));
    fileOnce(join(dir, "sa.key"), () => {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      writeFileSync(join(dir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
      return privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    });
    writeFileSync(join(dir, "tokens.csv"), `${adminToken},cms-emulator,cms-emulator,system:masters\n`, { mode: 0o600 });

    const proxy = await listenProxy(endpoint);
    let upstream: number | undefined;
    let proc: TiedProcess | undefined;
    let workloads: Workloads | undefined;
    let stopped = false;
    const ready = (async () => {
      const etcd = await this.etcdUrl();
      let lastError: unknown;
      for (let attempt = 0; attempt < PORT_ATTEMPTS && !stopped; attempt++) {
        const port = await freePort();
        proc = spawnTied(
          this.binaries.apiserver,
          apiserverArgs(dir, clusterId, etcd, port),
          join(dir, "kube-apiserver.log"),
          APISERVER_GO_MEMORY,
        );
        try {
          await waitUntil(
            `kube-apiserver of ${clusterId}`,
            async () => (await kubeRequest(insecureAdmin(port, adminToken), "GET", "/readyz")).status === 200,
            { process: proc, timeoutMs: START_TIMEOUT_MS, intervalMs: 200 },
          );
          upstream = port;
          workloads = startWorkloads(this.binaries, dir, `https://127.0.0.1:${port}`, join(dir, "certs", "apiserver.crt"), adminToken);
          proxy.release(port);
          return;
        } catch (e) {
          lastError = e;
          await proc.stop(2000);
        }
      }
      throw new Error(`${(lastError as Error)?.message ?? "stopped"}; its log ends:\n${logTail(join(dir, "kube-apiserver.log"))}`);
    })();
    ready.catch(() => proxy.close());

    return {
      endpoint: `https://127.0.0.1:${proxy.port}`,
      namespace: "default",
      ready: ready.then(() => {
        const caPem = readFileSync(join(dir, "certs", "apiserver.crt"), "utf8");
        return { admin: { server: `https://127.0.0.1:${upstream}`, caPem, token: adminToken } satisfies KubeConnection, caPem };
      }),
      stop: async () => {
        stopped = true;
        proxy.close();
        await workloads?.stop();
        await proc?.stop();
        rmSync(dir, { recursive: true, force: true });
        await this.dropKeys(clusterId);
      },
      suspend: async () => {
        stopped = true;
        proxy.close();
        await workloads?.stop();
        await proc?.stop();
      },
    };
  }

  /** Removes the cluster's keys from etcd, through etcd's JSON gateway. */
  private async dropKeys(clusterId: string): Promise<void> {
    if (!this.etcd) return;
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const prefix = `/cms/${clusterId}/`;
    const end = `/cms/${clusterId}0`; // the key after every key with the prefix ("/" + 1)
    await fetch(`${this.etcd.url}/v3/kv/deleterange`, {
      method: "POST",
      body: JSON.stringify({ key: b64(prefix), range_end: b64(end) }),
    }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.etcd?.proc.stop();
  }
}

function apiserverArgs(dir: string, clusterId: string, etcd: string, port: number): string[] {
  return [
    `--etcd-servers=${etcd}`,
    `--etcd-prefix=/cms/${clusterId}`,
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    // Loopback only; the `kubernetes` Service's endpoints would need a routable address.
    "--endpoint-reconciler-type=none",
    `--cert-dir=${join(dir, "certs")}`,
    `--token-auth-file=${join(dir, "tokens.csv")}`,
    "--authorization-mode=RBAC",
    "--service-account-issuer=https://kubernetes.default.svc",
    `--service-account-key-file=${join(dir, "sa.pub")}`,
    `--service-account-signing-key-file=${join(dir, "sa.key")}`,
    "--service-account-max-token-expiration=87600h",
    "--service-cluster-ip-range=10.96.0.0/16",
    "--profiling=false",
    // No watch cache: lists and watches are served from etcd, which for an emulated cluster's few
    // objects costs nothing noticeable, and each resource's cache is memory the API server keeps.
    "--watch-cache=false",
  ];
}

/** The admin connection before the CA file is known to exist (readiness probe only). */
function insecureAdmin(port: number, token: string): KubeConnection {
  return { server: `https://127.0.0.1:${port}`, insecure: true, token };
}

/** The file's content, written by `make` on the first call. */
function fileOnce(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, "utf8");
  const value = make();
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}

/** A listener that holds connections until {@link release} names where to send them. */
interface Proxy {
  port: number;
  release(upstream: number): void;
  close(): void;
}

async function listenProxy(endpoint: string | undefined): Promise<Proxy> {
  let upstream: number | undefined;
  const waiting: Socket[] = [];
  const sockets = new Set<Socket>();
  const pipe = (client: Socket, port: number) => {
    const server = connect(port, "127.0.0.1");
    client.pipe(server).pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on("error", end).on("close", end);
    server.on("error", end).on("close", end);
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    if (upstream === undefined) waiting.push(client);
    else pipe(client, upstream);
  });
  // The recorded port after a restart, so kubeconfigs handed out before it keep working.
  const wanted = endpoint?.match(/^https:\/\/127\.0\.0\.1:(\d+)$/)?.[1];
  const port = await new Promise<number>((resolve, reject) => {
    const listen = (p: number, fallback: boolean) => {
      server.once("error", (e) => (fallback ? listen(0, false) : reject(e)));
      server.listen(p, "127.0.0.1", () => {
        server.removeAllListeners("error");
        const a = server.address();
        resolve(typeof a === "object" && a ? a.port : 0);
      });
    };
    listen(wanted ? Number(wanted) : 0, wanted !== undefined);
  });
  return {
    port,
    release(p) {
      upstream = p;
      for (const client of waiting.splice(0)) if (!client.destroyed) pipe(client, p);
    },
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
