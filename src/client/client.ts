/**
 * The typed client of the Cluster Management Service v1 API: one method per endpoint. The jobs
 * behind them, innermost first, each in its own file:
 * 1. `transport.ts`: one HTTP request through the limiter; any failure becomes our own typed
 *    error (an HTTP library error never escapes: it carries the Authorization header).
 * 2. `retry-driver.ts`: p-retry drives attempts; `decideRetry` (`retry.ts`, pure) says whether
 *    and how long to wait; recovery hooks keep non-idempotent or state-changing calls from doing
 *    things twice (`lost-create.ts` for a create whose reply was lost).
 * 3. `budget.ts`: each call has one deadline (the operation's `deadlineMs`, else `callTimeoutMs`
 *    from the call's start) that every wait inside it, down to the limiter's, is measured against.
 * Answers are checked against the wire contract (`answers.ts`) before they are returned.
 */
import { parseAnswer, checkKubeconfig, idSegment, sameField, type AnswerShape, type AnswerSource } from "./answers";
import { callBudget, type Budget, type CallOptions } from "./budget";
import { UnprovenOwnershipError, isNotFound, isConflict } from "./errors";
import { findLostCreate } from "./lost-create";
import { resolveClientOptions, type ClientOptions, type ResolvedClientOptions } from "./options";
import { allClusters } from "./pagination";
import { claimClusterId, limiterKey } from "./runtime";
import { withRetry, type RetryDriverOptions, type RetryHooks } from "./retry-driver";
import { Transport, isExchange, type Exchange, type RequestSpec } from "./transport";
import type { NameProof } from "../shared/domain/ownership";
import type {
  ApiCluster,
  ApiClusterList,
  ApiClusterSummary,
  ApiNode,
  ApiNodeList,
  ClusterStatus,
  CreateClusterRequest,
  UpdateClusterRequest,
} from "@pulumi-cms/contract";

/** Options of {@link CmsClient.createCluster}. */
export interface CreateOptions {
  /**
   * What the requested name proves after a lost reply (see `shared/domain/ownership.ts`): `"seeded"`
   * when no other caller can compute it, so a cluster carrying it is this call's; `"none"`
   * (default) for any other name, so a cluster carrying it is never taken.
   */
  nameProof?: NameProof;
}

/** Client of the Cluster Management Service v1 API. One method per endpoint. */
export class CmsClient {
  /** Normalised base URL, without `/v1`. */
  readonly endpoint: string;
  // ES private fields: not enumerable, not in JSON.stringify, not shown by util.inspect, so the
  // token cannot leak by logging the client.
  readonly #token: string;
  readonly #options: Omit<ResolvedClientOptions, "token">;
  readonly #retry: RetryDriverOptions;
  readonly #transport: Transport;
  /** When the client was made: `deadlineMs` counts from here. */
  readonly #createdAt: number;

  constructor(options: ClientOptions) {
    const { token, ...rest } = resolveClientOptions(options);
    this.#token = token;
    this.#options = rest;
    this.endpoint = rest.endpoint;
    this.#createdAt = rest.clock.now();
    this.#retry = { ...rest, token };
    this.#transport = new Transport(token, rest);
  }

  /**
   * The same string for every client of this endpoint + token, e.g. to share work between them
   * (the provider's shared status polling). Holds a hash of the token, never the token.
   */
  get identity(): string {
    return limiterKey(this.endpoint, this.#token);
  }

  /** The server's clock as best we know it (local clock plus the skew seen in `Date` headers). */
  serverNow(): number {
    return this.#options.clock.now() + this.#transport.serverOffsetMs;
  }

  // ---------------------------------------------------------------------------------- clusters

  /** `GET /v1/clusters`: one page of clusters. */
  listClusters(query: { page?: number; perPage?: number; status?: ClusterStatus } = {}, call?: CallOptions): Promise<ApiClusterList> {
    return this.#listPage(query, this.#budget(call));
  }

  async #listPage(query: { page?: number; perPage?: number; status?: ClusterStatus }, budget: Budget): Promise<ApiClusterList> {
    const res = await this.#request(
      {
        method: "GET",
        path: "/clusters",
        query: { page: query.page, per_page: query.perPage, status: query.status },
      },
      budget,
    );
    return this.#answer<ApiClusterList>("clusterList", res, "GET", "/clusters");
  }

  /**
   * Every cluster (optionally of one status), walking all pages (`clusterPages`), within one
   * deadline. Complete or an error: pages that contradict each other or `total` fail the listing.
   */
  listAllClusters(query: { status?: ClusterStatus } = {}, call?: CallOptions): Promise<ApiCluster[]> {
    return this.#listAll(query, this.#budget(call));
  }

  #listAll(query: { status?: ClusterStatus }, budget: Budget): Promise<ApiCluster[]> {
    return allClusters({ listClusters: (q) => this.#listPage(q, budget) }, query);
  }

  /**
   * `POST /v1/clusters`. Safe against a lost reply: if the request may have been processed but no
   * answer came back (connection dropped, timeout, 500/502/504), it is not re-sent blindly; the
   * clusters are listed first and `judgeOwnership` (`shared/domain/ownership.ts`) decides:
   * - a cluster that carries a name only this caller can compute (`nameProof: "seeded"`) is
   *   returned instead of creating a duplicate;
   * - a cluster that merely has the requested name and shape, created after the request began,
   *   may be another caller's (names are not unique): nothing is taken and the call fails with an
   *   {@link UnprovenOwnershipError} naming the candidates;
   * - with no candidate the POST is sent again. When no reply came at all, the server may still
   *   be working on the request, so the listing is repeated for up to `settleWindowMs` first.
   * A 429 or 503 (refused before processing) is simply re-sent after the requested wait.
   */
  async createCluster(body: CreateClusterRequest, options: CreateOptions = {}): Promise<ApiClusterSummary> {
    const clock = this.#options.clock;
    const startedLocal = clock.now();
    const budget = this.#budget();
    const res = await this.#withRetry<Exchange | ApiCluster>(
      "POST",
      "/clusters",
      () => this.#transport.exchange({ method: "POST", path: "/clusters", body }, budget),
      {
        verify: (error) =>
          findLostCreate(
            {
              body,
              nameProof: options.nameProof ?? "none",
              startedLocal,
              budget,
              settleWindowMs: this.#options.settleWindowMs,
              clock,
              listAll: () => this.#listAll({}, budget),
              serverOffsetMs: () => this.#transport.serverOffsetMs,
              claimed: this.#options.runtime.claimedIds,
            },
            error,
          ),
      },
      budget,
    );
    // A cluster found after a lost reply came from a listing, checked already.
    const created = isExchange(res) ? this.#answer<ApiClusterSummary>("clusterSummary", res, "POST", "/clusters") : res;
    claimClusterId(this.#options.runtime, created.id);
    return created;
  }

  /** `GET /v1/clusters/{id}`: the full cluster. */
  getCluster(id: string, call?: CallOptions): Promise<ApiCluster> {
    return this.#getCluster(id, this.#budget(call));
  }

  async #getCluster(id: string, budget: Budget): Promise<ApiCluster> {
    const path = `/clusters/${this.#segment("cluster", id, "GET /v1/clusters/{cluster_id}")}`;
    const res = await this.#request({ method: "GET", path }, budget);
    return this.#sameCluster(id, this.#answer<ApiCluster>("cluster", res, "GET", path), res, "GET", path);
  }

  /**
   * `PATCH /v1/clusters/{id}` with `workers` and/or `node_size`. Returns the response body, or
   * the cluster fetched afterwards when the server answers without one. If a retry (after a lost
   * reply) is refused with 409 because the first attempt already started scaling, the cluster is
   * fetched and returned when it already has the requested values.
   */
  async updateCluster(id: string, patch: UpdateClusterRequest): Promise<ApiCluster> {
    const path = `/clusters/${this.#segment("cluster", id, "PATCH /v1/clusters/{cluster_id}")}`;
    const budget = this.#budget();
    const res = await this.#withRetry<Exchange | ApiCluster>(
      "PATCH",
      path,
      () => this.#transport.exchange({ method: "PATCH", path, body: patch }, budget),
      {
        afterUnknownOutcome: async (error) => {
          if (!isConflict(error)) return undefined;
          const current = await this.#getCluster(id, budget);
          const applied =
            (patch.workers === undefined || current.workers === patch.workers) &&
            (patch.node_size === undefined || current.node_size === patch.node_size);
          return applied ? { value: current } : undefined;
        },
      },
      budget,
    );
    if (!isExchange(res)) return res;
    if (res.body.trim() === "") return this.#getCluster(id, budget);
    return this.#sameCluster(id, this.#answer<ApiCluster>("cluster", res, "PATCH", path), res, "PATCH", path);
  }

  /**
   * `DELETE /v1/clusters/{id}`. A 404 on a retry after a lost reply means the first attempt
   * deleted it: that is success, not an error.
   */
  async deleteCluster(id: string): Promise<void> {
    const path = `/clusters/${this.#segment("cluster", id, "DELETE /v1/clusters/{cluster_id}")}`;
    const budget = this.#budget();
    await this.#withRetry<Exchange | undefined>(
      "DELETE",
      path,
      () => this.#transport.exchange({ method: "DELETE", path }, budget),
      { afterUnknownOutcome: async (error) => (isNotFound(error) ? { value: undefined } : undefined) },
      budget,
    );
  }

  /**
   * `GET /v1/clusters/{id}/kubeconfig`: the YAML text, as sent, once it parses as a kubeconfig.
   * A text the same as `call.known` (one the caller holds from an earlier answer, such as the
   * stack's) is not parsed again: a refresh downloads the same kubeconfig every time.
   */
  async getKubeconfig(id: string, call?: CallOptions & { known?: string }): Promise<string> {
    const path = `/clusters/${this.#segment("cluster", id, "GET /v1/clusters/{cluster_id}/kubeconfig")}/kubeconfig`;
    const res = await this.#request({ method: "GET", path, accept: "text/yaml, application/yaml, text/plain, */*" }, this.#budget(call));
    if (call?.known !== undefined && res.body === call.known && res.body.trim() !== "") return res.body;
    return checkKubeconfig(res.body, this.#source(res, "GET", path));
  }

  // ------------------------------------------------------------------------------------- nodes

  /** `GET /v1/clusters/{id}/nodes`: all nodes of a cluster. */
  async listNodes(clusterId: string, call?: CallOptions): Promise<ApiNodeList> {
    const path = `/clusters/${this.#segment("cluster", clusterId, "GET /v1/clusters/{cluster_id}/nodes")}/nodes`;
    const res = await this.#request({ method: "GET", path }, this.#budget(call));
    const list = this.#answer<ApiNodeList>("nodeList", res, "GET", path);
    for (const [i, node] of list.items.entries())
      sameField(`items[${i}].cluster_id`, node.cluster_id, clusterId, "cluster", this.#source(res, "GET", path));
    return list;
  }

  /** `GET /v1/clusters/{id}/nodes/{node_id}`: one node. */
  async getNode(clusterId: string, nodeId: string, call?: CallOptions): Promise<ApiNode> {
    const request = "GET /v1/clusters/{cluster_id}/nodes/{node_id}";
    const path = `/clusters/${this.#segment("cluster", clusterId, request)}/nodes/${this.#segment("node", nodeId, request)}`;
    const res = await this.#request({ method: "GET", path }, this.#budget(call));
    const node = this.#answer<ApiNode>("node", res, "GET", path);
    sameField("id", node.id, nodeId, "node", this.#source(res, "GET", path));
    sameField("cluster_id", node.cluster_id, clusterId, "cluster", this.#source(res, "GET", path));
    return node;
  }

  // ---------------------------------------------------------------------------------- plumbing

  /** The deadline of a call starting now (`budget.ts`). */
  #budget(call?: CallOptions): Budget {
    return callBudget(this.#options, this.#createdAt, call);
  }

  /** An idempotent request with the standard retry policy. */
  #request(spec: RequestSpec, budget: Budget): Promise<Exchange> {
    return this.#withRetry<Exchange>(spec.method, spec.path, () => this.#transport.exchange(spec, budget), {}, budget);
  }

  #withRetry<T>(method: string, path: string, attempt: () => Promise<T>, hooks: RetryHooks<T>, budget: Budget): Promise<T> {
    return withRetry(this.#retry, method, path, attempt, hooks, budget);
  }

  #source(res: Exchange, method: string, path: string): AnswerSource {
    return { method, path: `/v1${path}`, status: res.status, secrets: [this.#token] };
  }

  /** The answer's body, parsed and checked against the contract (`answers.ts`). */
  #answer<T>(shape: AnswerShape, res: Exchange, method: string, path: string): T {
    return parseAnswer<T>(shape, res.body, this.#source(res, method, path), this.endpoint);
  }

  /** The cluster, when it is the one asked for: an answer about another cluster is a broken one. */
  #sameCluster(id: string, cluster: ApiCluster, res: Exchange, method: string, path: string): ApiCluster {
    sameField("id", cluster.id, id, "cluster", this.#source(res, method, path));
    return cluster;
  }

  /** An id as a path segment, refused before anything is sent when it is not of its shape. */
  #segment(kind: "cluster" | "node", id: string, request: string): string {
    return idSegment(kind, id, request, [this.#token]);
  }
}

/**
 * Create a client: `options` are merged over the defaults (each option names its own).
 * Same as `new CmsClient(options)`.
 */
export function createClient(options: ClientOptions): CmsClient {
  return new CmsClient(options);
}
