/**
 * The typed client of the Cluster Management Service v1 API.
 *
 * Layers, innermost first:
 * 1. `exchange`: one HTTP request through the limiter; any failure becomes our own typed error
 *    (an HTTP library error never escapes: it carries the Authorization header).
 * 2. `withRetry`: p-retry drives attempts; `decideRetry` (pure) says whether and how long to
 *    wait; lost-reply recovery (`verify`, `afterUnknownOutcome`) keeps non-idempotent or
 *    state-changing calls from doing things twice.
 * 3. One method per endpoint. Each call has one deadline (a {@link Budget}: the operation's
 *    `deadlineMs`, else `callTimeoutMs` from the call's start) that every wait inside it, down to
 *    the limiter's, is measured against.
 */
import axios, { type AxiosInstance, type AxiosResponse } from "axios";
import pRetry from "p-retry";
import { errorFromResponse, networkErrorFrom } from "./error-mapping";
import { checkAnswer, brokenAnswer, idSegment, quote, type AnswerShape, type AnswerSource } from "./answers";
import { ApiError, DeadlineError, NetworkError, UnprovenOwnershipError, isApiError, isNotFound, isConflict } from "./errors";
import { parseDateHeader, parseRateLimitHeaders, parseRetryAfter, quoteHeader, toHeaderBag, type HeaderBag } from "./headers";
import { RateLimiter, limiterKey, sharedLimiter } from "./limiter";
import { CmsError } from "../shared/cms-error";
import { OperationError } from "../shared/operation-error";
import { omitUndefined } from "../shared/omit-undefined";
import { formatDuration } from "../shared/durations";
import { clusterPages, listingError, totalOf } from "./pagination";
import { redact } from "./redact";
import { resolveClientOptions, type ClientOptions, type ResolvedClientOptions } from "./options";
import { claimClusterId, claimedClusterIds } from "./reconcile";
import { judgeOwnership, type NameProof } from "../shared/ownership";
import { decideRetry, isRateLimited, outcomeUnknown, serverRequestedDelay, type RetryInput } from "./retry";
import type {
  ApiCluster,
  ApiClusterList,
  ApiClusterSummary,
  ApiNode,
  ApiNodeList,
  ClusterStatus,
  CreateClusterRequest,
  UpdateClusterRequest,
} from "../shared/wire-types";

/** Options of {@link CmsClient.createCluster}. */
export interface CreateOptions {
  /**
   * What the requested name proves after a lost reply (see `shared/ownership.ts`): `"seeded"`
   * when no other caller can compute it, so a cluster carrying it is this call's; `"none"`
   * (default) for any other name, so a cluster carrying it is never taken.
   */
  nameProof?: NameProof;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * The caller's own deadline, in ms from now: no wait of the call (Retry-After, the rate
   * limiter's hold, back-off) passes it or the client's deadline, whichever comes first.
   */
  deadlineInMs?: number;
  /** What messages call that deadline, e.g. `create timeout`. */
  deadlineName?: string;
}

interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path below `/v1`, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Accept header; the kubeconfig is YAML. */
  accept?: string;
}

interface Exchange {
  status: number;
  headers: HeaderBag;
  /** Raw body text: we parse JSON ourselves so a non-JSON body can never throw inside axios. */
  body: string;
}

/** The deadline of one call: no wait inside it runs past `at` (the client's clock). */
interface Budget {
  at: number;
  /** What the deadline is, for messages: `create timeout`. */
  name: string;
}

/** The shortest time an exchange is given, however near the deadline it is sent. */
const MIN_EXCHANGE_MS = 1_000;
/** The longest delay `setTimeout` takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What the deadline of a call is called when the client was given no `deadlineMs`. */
const CALL_TIMEOUT_NAME = "client's call timeout (callTimeoutMs)";

/**
 * Passes over the listing when its pages and `total` disagree: clusters created or deleted between
 * two pages can do that once; a service that does it every time is answering inconsistently.
 */
const LISTING_PASSES = 3;

/** A value produced by a recovery hook (wrapped so `void` results are distinguishable). */
interface Recovered<T> {
  value: T;
}

interface RetryHooks<T> {
  /** Before re-sending a request whose outcome is unknown: did the first attempt take effect? */
  verify?: (error: unknown) => Promise<Recovered<T> | undefined>;
  /** A re-sent request failed after an earlier attempt's outcome was unknown: was it done after all? */
  afterUnknownOutcome?: (error: ApiError) => Promise<Recovered<T> | undefined>;
}

/** Client of the Cluster Management Service v1 API. One method per endpoint. */
export class CmsClient {
  /** Normalised base URL, without `/v1`. */
  readonly endpoint: string;
  // ES private fields: not enumerable, not in JSON.stringify, not shown by util.inspect, so the
  // token cannot leak by logging the client.
  readonly #token: string;
  readonly #options: Omit<ResolvedClientOptions, "token">;
  readonly #http: AxiosInstance;
  readonly #limiter: RateLimiter | undefined;
  /** Server clock minus local clock, from the latest `Date` header. */
  #serverOffsetMs = 0;
  /** When the client was made: `deadlineMs` counts from here. */
  readonly #createdAt: number;

  constructor(options: ClientOptions) {
    const { token, ...rest } = resolveClientOptions(options);
    this.#token = token;
    this.#options = rest;
    this.endpoint = rest.endpoint;
    this.#createdAt = rest.clock.now();
    this.#limiter = rest.limiter instanceof RateLimiter ? rest.limiter : rest.limiter ? sharedLimiter(rest.endpoint, token) : undefined;
    this.#http = axios.create({
      baseURL: `${rest.endpoint}/v1`,
      timeout: rest.timeoutMs,
      // Every status is a response we handle ourselves; axios only throws when there is none.
      validateStatus: () => true,
      responseType: "text",
      transformResponse: [(data: unknown) => data],
      // A redirect would replay the bearer token to wherever it points.
      maxRedirects: 0,
      // A body is read into memory whole: a runaway one must fail, not take the process down.
      maxContentLength: rest.maxResponseBytes,
      maxBodyLength: rest.maxResponseBytes,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: false },
    });
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
    return this.#options.clock.now() + this.#serverOffsetMs;
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

  async #listAll(query: { status?: ClusterStatus }, budget: Budget): Promise<ApiCluster[]> {
    const lister = { listClusters: (q: { page?: number; perPage?: number; status?: ClusterStatus }) => this.#listPage(q, budget) };
    for (let pass = 1; ; pass++) {
      const seen = new Map<string, ApiCluster>();
      let total: number | undefined;
      // Clusters created or deleted while we page can shift items across pages: key by id.
      for await (const list of clusterPages(lister, query)) {
        for (const c of list.items) seen.set(c.id, c);
        total = totalOf(list);
      }
      if (total === undefined || seen.size === total) return [...seen.values()];
      if (pass === LISTING_PASSES) {
        throw listingError(
          `the pages held ${seen.size} different clusters where \`total\` says ${total}, in ${LISTING_PASSES} listings in a row`,
        );
      }
    }
  }

  /**
   * `POST /v1/clusters`. Safe against a lost reply: if the request may have been processed but no
   * answer came back (connection dropped, timeout, 500/502/504), it is not re-sent blindly; the
   * clusters are listed first and `judgeOwnership` (`shared/ownership.ts`) decides:
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
      () => this.#exchange({ method: "POST", path: "/clusters", body }, budget),
      {
        verify: async (error) => {
          // A status reply means the server is done with the request; silence means it may not be.
          const settleMs = error instanceof NetworkError ? this.#options.settleWindowMs : 0;
          const settleUntil = clock.now() + settleMs;
          for (;;) {
            const all = await this.#listAll({}, budget);
            // Compute the start on the server's clock only now: the list's Date headers have just
            // refreshed our estimate of the skew.
            const ownership = judgeOwnership(all, {
              name: body.name,
              proof: options.nameProof ?? "none",
              request: body,
              notBefore: startedLocal + this.#serverOffsetMs,
              exclude: claimedClusterIds(),
            });
            if (ownership.verdict === "ours") return { value: ownership.cluster };
            if (ownership.verdict === "unproven") {
              throw new UnprovenOwnershipError(
                body.name,
                ownership.candidates,
                `the reply to the create of cluster "${body.name}" was lost`,
              );
            }
            const now = clock.now();
            if (now >= settleUntil) return undefined;
            if (now >= budget.at) {
              // Sending it again now could make a second cluster beside one still being created.
              throw new DeadlineError({
                method: "POST",
                path: "/v1/clusters",
                wait: `the wait of up to ${formatDuration(settleMs)} (settleWindowMs) for the cluster it may have created to show up`,
                waitMs: settleUntil - now,
                remainingMs: budget.at - now,
                deadline: budget.name,
                lastError: asError(error),
              });
            }
            await clock.sleep(Math.min(settleUntil - now, budget.at - now, 1_000));
          }
        },
      },
      budget,
    );
    // A cluster found after a lost reply came from a listing, checked already.
    const created = isExchange(res) ? this.#answer<ApiClusterSummary>("clusterSummary", res, "POST", "/clusters") : res;
    claimClusterId(created.id);
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
      () => this.#exchange({ method: "PATCH", path, body: patch }, budget),
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
      () => this.#exchange({ method: "DELETE", path }, budget),
      { afterUnknownOutcome: async (error) => (isNotFound(error) ? { value: undefined } : undefined) },
      budget,
    );
  }

  /** `GET /v1/clusters/{id}/kubeconfig`: the YAML text, as sent (never parsed). */
  async getKubeconfig(id: string, call?: CallOptions): Promise<string> {
    const path = `/clusters/${this.#segment("cluster", id, "GET /v1/clusters/{cluster_id}/kubeconfig")}/kubeconfig`;
    const res = await this.#request({ method: "GET", path, accept: "text/yaml, application/yaml, text/plain, */*" }, this.#budget(call));
    if (res.body.trim() === "") throw brokenAnswer(this.#source(res, "GET", path), "an empty body where the contract has a kubeconfig");
    return res.body;
  }

  // ------------------------------------------------------------------------------------- nodes

  /** `GET /v1/clusters/{id}/nodes`: all nodes of a cluster. */
  async listNodes(clusterId: string, call?: CallOptions): Promise<ApiNodeList> {
    const path = `/clusters/${this.#segment("cluster", clusterId, "GET /v1/clusters/{cluster_id}/nodes")}/nodes`;
    const res = await this.#request({ method: "GET", path }, this.#budget(call));
    const list = this.#answer<ApiNodeList>("nodeList", res, "GET", path);
    for (const [i, node] of list.items.entries())
      this.#sameField(`items[${i}].cluster_id`, node.cluster_id, clusterId, "cluster", res, "GET", path);
    return list;
  }

  /** `GET /v1/clusters/{id}/nodes/{node_id}`: one node. */
  async getNode(clusterId: string, nodeId: string, call?: CallOptions): Promise<ApiNode> {
    const request = "GET /v1/clusters/{cluster_id}/nodes/{node_id}";
    const path = `/clusters/${this.#segment("cluster", clusterId, request)}/nodes/${this.#segment("node", nodeId, request)}`;
    const res = await this.#request({ method: "GET", path }, this.#budget(call));
    const node = this.#answer<ApiNode>("node", res, "GET", path);
    this.#sameField("id", node.id, nodeId, "node", res, "GET", path);
    this.#sameField("cluster_id", node.cluster_id, clusterId, "cluster", res, "GET", path);
    return node;
  }

  // ---------------------------------------------------------------------------------- plumbing

  /**
   * The deadline of a call starting now: the operation's, else `callTimeoutMs` from now; the
   * caller's own (`call`) when it comes first.
   */
  #budget(call?: CallOptions): Budget {
    const o = this.#options;
    const own: Budget =
      o.deadlineMs !== undefined
        ? { at: this.#createdAt + o.deadlineMs, name: o.deadlineName }
        : { at: o.clock.now() + o.callTimeoutMs, name: CALL_TIMEOUT_NAME };
    if (call?.deadlineInMs === undefined) return own;
    const at = o.clock.now() + Math.max(0, call.deadlineInMs);
    return at < own.at ? { at, name: call.deadlineName ?? "caller's deadline" } : own;
  }

  /** An idempotent request with the standard retry policy. */
  #request(spec: RequestSpec, budget: Budget): Promise<Exchange> {
    return this.#withRetry<Exchange>(spec.method, spec.path, () => this.#exchange(spec, budget), {}, budget);
  }

  /**
   * Run `attempt` under p-retry: it counts the attempts, stops after `retries`, and calls
   * `onFailedAttempt`, where `decideRetry` (pure) decides whether to go on and how long to wait.
   * p-retry's own timer is set to 0 because its delays follow a fixed schedule (minTimeout, factor),
   * while this service says how long to wait in each response (Retry-After, the rate-limit reset).
   * p-retry's readme does the same for a custom delay: wait inside `onFailedAttempt` (so in 9.0,
   * the current, ESM-only line; 4.x is its CommonJS line). The wait is slept on the client's
   * clock, so tests run it in virtual time. A wait that would pass the call's deadline is not
   * begun: the call fails at once with a {@link DeadlineError} naming what asked for it.
   */
  async #withRetry<T>(method: string, path: string, attempt: () => Promise<T>, hooks: RetryHooks<T>, budget: Budget): Promise<T> {
    const fullPath = `/v1${path}`;
    // What earlier attempts of this call showed, read by the next one:
    // a POST whose outcome is unknown is looked up (`verify`) before it is re-sent,
    let verifyPending = false;
    let lastError: unknown;
    // a later refusal may be the echo of an earlier attempt that did take effect,
    let sawUnknownOutcome = false;
    // and 429s do not count toward the backoff exponent of other failures.
    let rateLimited = 0;
    const run = async (): Promise<T> => {
      if (verifyPending && hooks.verify) {
        verifyPending = false;
        // Errors of the lookup are about other requests: stop here rather than feed them to the
        // POST's retry decision.
        const found = await hooks.verify(lastError).catch((e: unknown) => {
          throw new pRetry.AbortError(asError(e));
        });
        if (found) return found.value;
      }
      try {
        return await attempt();
      } catch (error) {
        if (sawUnknownOutcome && hooks.afterUnknownOutcome && isApiError(error)) {
          const recovered = await hooks.afterUnknownOutcome(error).catch(() => undefined);
          if (recovered) return recovered.value;
        }
        throw error;
      }
    };
    try {
      return await pRetry(run, {
        retries: this.#options.retries,
        minTimeout: 0,
        maxTimeout: 0,
        factor: 1,
        randomize: false,
        onFailedAttempt: async (failure) => {
          const error = failure as unknown as Error & { attemptNumber: number };
          const input = retryInputOf(error, method, error.attemptNumber);
          if (!input) throw error;
          if (isRateLimited(input)) rateLimited += 1;
          input.backoffAttempt = Math.max(1, input.attempt - rateLimited);
          const decision = decideRetry(input, {
            retries: this.#options.retries,
            minRetryDelayMs: this.#options.minRetryDelayMs,
            maxRetryDelayMs: this.#options.maxRetryDelayMs,
            now: () => this.#options.clock.now(),
          });
          // Throwing from here ends p-retry with THIS error (not its "most frequent" one).
          if (!decision.retry) throw error;
          if (decision.verifyBeforeResend) {
            if (!hooks.verify) throw error;
            verifyPending = true;
            lastError = error;
          }
          if (outcomeUnknown(input)) sawUnknownOutcome = true;
          const remainingMs = budget.at - this.#options.clock.now();
          const server = decision.server;
          if (server && server.askedMs > remainingMs) {
            // The service will not take the request before the deadline: waiting only delays the failure.
            throw new DeadlineError({
              method,
              path: fullPath,
              wait: server.header,
              waitMs: server.askedMs,
              remainingMs,
              deadline: budget.name,
              lastError: error,
            });
          }
          if (decision.delayMs > remainingMs) {
            throw new DeadlineError({
              method,
              path: fullPath,
              wait: `the back-off of ${formatDuration(decision.delayMs)} before attempt ${input.attempt + 1}`,
              waitMs: decision.delayMs,
              remainingMs,
              deadline: budget.name,
              lastError: error,
            });
          }
          try {
            this.#options.onRetry?.({
              attempt: input.attempt,
              delayMs: decision.delayMs,
              reason: decision.reason,
              method,
              path: fullPath,
              status: input.status,
              networkCode: input.networkError ? (input.networkCode ?? "network error") : undefined,
            });
          } catch {
            // A logging callback must not change the outcome of the request.
          }
          if (decision.delayMs > 0) await this.#options.clock.sleep(decision.delayMs);
        },
      });
    } catch (error) {
      throw finalError(error, method, fullPath, this.#token);
    }
  }

  /** One HTTP exchange through the limiter. Resolves only for 2xx; throws our typed errors. */
  async #exchange(spec: RequestSpec, budget: Budget): Promise<Exchange> {
    const fullPath = `/v1${spec.path}`;
    const ticket = this.#limiter
      ? await this.#limiter.acquire({
          remainingMs: budget.at - this.#options.clock.now(),
          deadline: budget.name,
          method: spec.method,
          path: fullPath,
        })
      : undefined;
    // axios' own timeout is a socket-idle timer: a server that trickles bytes never trips it.
    // This timer bounds the whole exchange, and by the call's deadline too (a second at least, so
    // a request sent on the deadline can still be answered).
    const expiry = new AbortController();
    const untilDeadline = Math.min(MAX_TIMER_MS, Math.max(MIN_EXCHANGE_MS, budget.at - this.#options.clock.now()));
    const limitMs = this.#options.timeoutMs > 0 ? Math.min(this.#options.timeoutMs, untilDeadline) : untilDeadline;
    const timer = setTimeout(() => expiry.abort(), limitMs);
    let response: AxiosResponse<string>;
    try {
      response = await this.#http.request<string>({
        signal: expiry.signal,
        method: spec.method,
        url: spec.path,
        params: spec.query && omitUndefined(spec.query),
        data: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        headers: {
          Authorization: `Bearer ${this.#token}`,
          Accept: spec.accept ?? "application/json",
          "User-Agent": this.#options.userAgent,
          ...(spec.body === undefined ? {} : { "Content-Type": "application/json" }),
        },
      });
    } catch (error) {
      if (ticket) this.#limiter?.complete(undefined);
      // The axios error holds config.headers.Authorization: keep only its code and message text.
      const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; address?: unknown } };
      const expired = expiry.signal.aborted;
      const message = typeof e.message === "string" ? e.message : undefined;
      // axios reports a body over maxContentLength as a generic ERR_BAD_RESPONSE: name it.
      const tooLarge = !expired && /maxContentLength/.test(message ?? "");
      const code = expired
        ? "ETIMEDOUT"
        : tooLarge
          ? "ERR_RESPONSE_TOO_LARGE"
          : typeof e.code === "string"
            ? e.code
            : typeof e.cause?.code === "string"
              ? e.cause.code
              : undefined;
      const address = typeof e.cause?.address === "string" ? e.cause.address : undefined;
      const loopback = isLoopback(new URL(this.endpoint).hostname) || (address !== undefined && isLoopback(address));
      const failure = networkErrorFrom({
        method: spec.method,
        path: fullPath,
        code,
        detail: expired
          ? `no complete response within ${limitMs} ms`
          : tooLarge
            ? `the body passed the limit of ${this.#options.maxResponseBytes} bytes, the client option maxResponseBytes`
            : message,
        timedOut: code === "ETIMEDOUT" || code === "ECONNABORTED",
        origin: new URL(this.endpoint).origin,
        loopback,
        secrets: [this.#token],
      });
      if (loopback) ON_THIS_MACHINE.add(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
    const receivedAt = this.#options.clock.now();
    const headers = toHeaderBag(response.headers);
    const body = typeof response.data === "string" ? response.data : response.data == null ? "" : String(response.data);
    const serverDate = parseDateHeader(headers.date);
    // Date is truncated to the second: the server's clock read somewhere in [date, date + 1 s),
    // so take the middle to halve the worst-case error.
    if (serverDate !== undefined) this.#serverOffsetMs = serverDate + 500 - receivedAt;

    if (ticket) {
      const info = parseRateLimitHeaders(headers, receivedAt);
      info.source = [quoteHeader(headers, "X-RateLimit-Remaining"), quoteHeader(headers, "X-RateLimit-Reset")].filter(Boolean).join(", ");
      if (response.status === 429) {
        // A refusal says the window is spent even when the headers are missing.
        if (info.remaining === undefined) info.remaining = 0;
        // Retry-After says exactly when to come back; the reset header is only a clock reading.
        const asked = serverRequestedDelay(headers, receivedAt);
        if (asked?.source === "Retry-After") {
          info.resetInMs = asked.delayMs;
          info.exact = true;
          info.source = `${asked.header} (a 429)`;
        } else if (info.resetInMs === undefined) info.resetInMs = asked?.delayMs;
      }
      this.#limiter?.complete(info, receivedAt);
    }

    if (response.status >= 200 && response.status < 300) return { status: response.status, headers, body };
    const err = errorFromResponse({
      status: response.status,
      body,
      method: spec.method,
      path: fullPath,
      retryAfterMs: retryAfterOf(response.status, headers),
      secrets: [this.#token],
    });
    // Keep the headers for the retry decision without making them part of the error's public face.
    RESPONSE_HEADERS.set(err, headers);
    throw err;
  }

  #source(res: Exchange, method: string, path: string): AnswerSource {
    return { method, path: `/v1${path}`, status: res.status, secrets: [this.#token] };
  }

  /** The answer's body, parsed and checked against the contract (`answers.ts`). */
  #answer<T>(shape: AnswerShape, res: Exchange, method: string, path: string): T {
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw brokenAnswer(
        this.#source(res, method, path),
        `a body that is not JSON (${quote(res.body, [this.#token])}); is the endpoint (${this.endpoint}) a Cluster Management Service?`,
      );
    }
    return checkAnswer<T>(shape, body, this.#source(res, method, path));
  }

  /** The cluster, when it is the one asked for: an answer about another cluster is a broken one. */
  #sameCluster(id: string, cluster: ApiCluster, res: Exchange, method: string, path: string): ApiCluster {
    this.#sameField("id", cluster.id, id, "cluster", res, method, path);
    return cluster;
  }

  #sameField(field: string, got: string, asked: string, kind: string, res: Exchange, method: string, path: string): void {
    if (got === asked) return;
    const secrets = [this.#token];
    const with_ = `"${field}" ${quote(got, secrets)} where ${quote(asked, secrets)} was asked for: another ${kind}`;
    throw brokenAnswer(this.#source(res, method, path), with_, field);
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

// Response headers of an ApiError, for the retry decision only (a WeakMap keeps them off the
// error object, so they are never serialised or logged with it).
const RESPONSE_HEADERS = new WeakMap<object, HeaderBag>();

function retryAfterOf(status: number, headers: HeaderBag): number | undefined {
  if (status === 429) return serverRequestedDelay(headers)?.delayMs;
  return parseRetryAfter(headers["retry-after"]);
}

// Network errors of requests to this machine (a loopback host or address), for the retry decision.
const ON_THIS_MACHINE = new WeakSet<object>();

/** True for a host name or address on this machine: `localhost`, 127.0.0.0/8, `::1`. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h);
}

function retryInputOf(error: unknown, method: string, attempt: number): RetryInput | undefined {
  if (error instanceof NetworkError) {
    return { method, networkError: true, networkCode: error.code, attempt, loopback: ON_THIS_MACHINE.has(error) };
  }
  if (error instanceof ApiError) {
    return { method, status: error.status, code: error.code, attempt, headers: RESPONSE_HEADERS.get(error) };
  }
  return undefined;
}

function isExchange(x: unknown): x is Exchange {
  return typeof x === "object" && x !== null && "status" in x && "headers" in x && "body" in x && typeof (x as Exchange).body === "string";
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * What leaves the client: our own error, stripped of the `attemptNumber` and `retriesLeft` p-retry
 * writes onto it (its public face is the documented fields only). Anything else
 * (a bug, an unexpected library error) is replaced by an `OperationError` of code `unexpected` with a scrubbed message, so
 * no foreign object holding request headers can escape.
 */
function finalError(error: unknown, method: string, path: string, token: string): Error {
  if (error instanceof CmsError) {
    const e = error as unknown as Record<string, unknown>;
    delete e.attemptNumber;
    delete e.retriesLeft;
    return error;
  }
  const text = error instanceof Error ? error.message : String(error);
  return new OperationError(`CMS API ${method} ${path} failed: ${redact(text, [token])}`, "unexpected");
}
