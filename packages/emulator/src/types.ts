/**
 * Public types of the emulator's in-process API. `index.ts` re-exports them; other packages
 * of the repo (provider tests, benchmarks) code against exactly these shapes.
 */
import type { ApiCluster, Clock } from "@pulumi-cms/contract";
import type { CapacityLimits } from "./model/capacity";

/** Permission a token can carry. */
export type Permission = "read" | "write" | "admin";
/** Plan of a token: decides its rate limit. */
export type Plan = "community" | "pro" | "enterprise";

/** A service token as given to the emulator (`--tokens FILE`, `addToken`). */
export interface TokenSpec {
  token: string;
  /** What the token is called (the service's client names every token it creates). */
  name?: string;
  permissions: Permission[];
  /** `*`, `cluster:*` or `cluster:<cluster id>`. */
  scope: string;
  plan: Plan;
  /** ISO 8601 time after which the token is rejected with 401. */
  expires_at?: string;
  /** Instead of `expires_at`: how long from now, on the emulator's clock, e.g. `30d`, `12h`, `90m`, `45s`. */
  expires_in?: string;
}

/** A token for {@link EmulatorControl.addToken}: without `token`, the emulator draws one. */
export type NewTokenSpec = Omit<TokenSpec, "token"> & { token?: string };

/** A token the emulator accepted: its secret (given or drawn) and when it expires. */
export interface AddedToken {
  token: string;
  name?: string;
  permissions: Permission[];
  scope: string;
  plan: Plan;
  /** ISO 8601 UTC; absent when the token never expires. */
  expires_at?: string;
}

/** Options of {@link startEmulator}. Durations are in seconds and may be fractional. */
export interface EmulatorOptions {
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Port; default 0 (a free port) in-process, 8787 for the CLI. */
  port?: number;
  /** Service tokens. */
  tokens?: TokenSpec[];
  /** One service token with every permission, scope `*` and plan {@link plan}. */
  token?: string;
  /** Plan of `token` or of the generated dev token; default `enterprise`. */
  plan?: Plan;
  /** Bearer token of the `/_emulator/` control API; generated when absent. */
  adminToken?: string;
  provisionSeconds?: number;
  scaleSeconds?: number;
  deleteSeconds?: number;
  upgradeSeconds?: number;
  /**
   * File that keeps clusters across restarts (an SQLite database; a JSON state of earlier releases
   * is converted); memory only when absent. One emulator per file.
   */
  statePath?: string;
  /**
   * Lower caps on clusters and nodes than the built-in ones, for tests of what happens at the cap.
   *
   * @internal
   */
  capacity?: CapacityLimits;
  /** Fastify request logging to stdout (never logs headers or bodies). */
  logger?: boolean;
  /**
   * Time source; default the wall clock. Tests pass a {@link ManualClock}. The emulator only reads
   * the time, so anything with `now()` will do.
   */
  clock?: Pick<Clock, "now">;
  /** Overrides of the per-plan requests-per-minute limits (benchmarks only). */
  planLimits?: Partial<Record<Plan, number>>;
  /** Limits on connections; see {@link ConnectionLimits} for the defaults. */
  connections?: ConnectionLimits;
  /**
   * Back every cluster with a real Kubernetes API server, so that its kubeconfig works with
   * kubectl and client libraries. Absent: kubeconfigs point at nothing (and nothing is started).
   */
  kubernetes?: KubernetesOptions;
}

/**
 * Where clusters get their Kubernetes API (see {@link EmulatorOptions.kubernetes}):
 * - `{}` or `{ binDir }`: one kube-apiserver per cluster on a shared etcd, run by the emulator
 *   (`binDir` holds `kube-apiserver` and `etcd`; found automatically when absent: envtest's
 *   `KUBEBUILDER_ASSETS`, the cache of `scripts/ensure-kubernetes`, `PATH`);
 * - `{ kubeconfig }`: a namespace per cluster in a cluster you run (kind, minikube, k3d).
 */
export interface KubernetesOptions {
  binDir?: string;
  /** Data of etcd and the API servers; default `<state file>.kubernetes`, or a temporary directory. */
  dataDir?: string;
  /** Path of a kubeconfig whose current context may create namespaces, service accounts and role bindings. */
  kubeconfig?: string;
}

/**
 * What one client may hold of the server. Defaults: headers within 10 s, the whole request
 * (headers and body) within 30 s, 4,096 open connections. A request past its time limit is
 * answered 408 and its connection closed; past the cap, new connections are closed at once.
 */
export interface ConnectionLimits {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxConnections?: number;
}

/** A started emulator. */
export interface RunningEmulator {
  /** `http://HOST:PORT`, no trailing slash, no `/v1`. */
  url: string;
  /** The dev token, the `token` option, or the first of `tokens`. */
  token: string;
  adminToken: string;
  /** Control API, in-process (no HTTP). */
  control: EmulatorControl;
  /** Flushes the state file and stops listening. */
  close(): Promise<void>;
}

/**
 * An injected failure. `path` is either a route pattern containing `:` (compared with the
 * matched route, e.g. `/v1/clusters/:cluster_id`) or a prefix of the request path (e.g.
 * `/v1/clusters/cls_0123` or `/v1`). Absent method or path matches everything under `/v1`.
 */
export interface FaultSpec {
  method?: string;
  path?: string;
  /** Match the request path exactly instead of as a prefix (`/v1/clusters`: the list only). */
  exact?: boolean;
  kind: "status" | "rate_limit" | "drop" | "latency";
  /** For `status` faults; default 503. */
  status?: 500 | 502 | 503;
  /** How many requests the fault affects; default 1, except latency faults: unlimited. */
  count?: number;
  /** For latency faults. */
  latencyMs?: number;
  /** For rate_limit faults; default 1. */
  retryAfterSeconds?: number;
}

/** Durations of the simulated operations, in seconds. */
export interface Timings {
  provisionSeconds?: number;
  scaleSeconds?: number;
  deleteSeconds?: number;
  upgradeSeconds?: number;
}

/** The control API, for tests, demos and benchmarks. In-process or over HTTP: same shape. */
export interface EmulatorControl {
  /** Forgets clusters, faults, request counts, rate-limit windows and pending failNext. */
  reset(): Promise<void>;
  /** Make matching `/v1` requests fail, stall or be throttled (see {@link FaultSpec}). */
  injectFault(f: FaultSpec): Promise<{ id: string }>;
  /** Remove every injected fault. */
  clearFaults(): Promise<void>;
  /** The next successful create / PATCH ends in status `error`. */
  failNext(operation: "create" | "update"): Promise<void>;
  /** Out-of-band worker count change, like the web console (cluster must be running). */
  scale(clusterId: string, workers: number): Promise<void>;
  /** Out-of-band node size change (cluster must be running). */
  resize(clusterId: string, nodeSize: string): Promise<void>;
  /** Out-of-band Kubernetes upgrade through `upgrading` (cluster must be running). */
  upgrade(clusterId: string, kubernetesVersion: string): Promise<void>;
  /** Out-of-band delete: goes through `deleting`, from any status. */
  deleteCluster(clusterId: string): Promise<void>;
  /** New kubeconfig credential for the cluster. */
  rotateKubeconfig(clusterId: string): Promise<void>;
  /** Requests to `/v1` per `"METHOD /route/:pattern"`, including faulted and 429 ones. */
  requestCounts(): Promise<Record<string, number>>;
  /** Start {@link requestCounts} from zero. */
  resetRequestCounts(): Promise<void>;
  /** Accept one more service token (the same token again replaces it); without `token`, a new one is drawn. */
  addToken(t: NewTokenSpec): Promise<AddedToken>;
  /** Revoke a token (as rotating it in the console does): it answers 401 from then on. */
  revokeToken(token: string): Promise<void>;
  /** Change the durations of operations started from now on. */
  setTimings(t: Timings): Promise<void>;
  /** Every cluster, ignoring scopes. */
  clusters(): Promise<ApiCluster[]>;
}
