/**
 * The typed client of the Cluster Management Service v1 API.
 *
 * Layers, innermost first:
 * 1. `exchange`: one HTTP request through the limiter; any failure becomes our own typed error
 *    (an HTTP library error never escapes: it carries the Authorization header).
 * 2. `withRetry`: p-retry drives attempts; `decideRetry` (pure) says whether and how long to
 *    wait; lost-reply recovery (`verify`, `afterUnknownOutcome`) keeps non-idempotent or
 *    state-changing calls from doing things twice.
 * 3. One method per endpoint.
 */
import axios, { type AxiosInstance, type AxiosResponse } from "axios";
import pRetry from "p-retry";
import { errorFromResponse, networkErrorFrom } from "./error-mapping";
import { ApiError, NetworkError, UnprovenOwnershipError, isApiError, isNotFound, isConflict } from "./errors";
import { parseDateHeader, parseRateLimitHeaders, parseRetryAfter, toHeaderBag, type HeaderBag } from "./headers";
import { RateLimiter, limiterKey, sharedLimiter } from "./limiter";
import { omitUndefined } from "../shared/omit-undefined";
import { clusterPages } from "./pagination";
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

  constructor(options: ClientOptions) {
    const { token, ...rest } = resolveClientOptions(options);
    this.#token = token;
    this.#options = rest;
    this.endpoint = rest.endpoint;
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
  async listClusters(query: { page?: number; perPage?: number; status?: ClusterStatus } = {}): Promise<ApiClusterList> {
    const res = await this.#request({
      method: "GET",
      path: "/clusters",
      query: { page: query.page, per_page: query.perPage, status: query.status },
    });
    const list = this.#json<ApiClusterList>(res, "GET", "/clusters");
    if (!list || !Array.isArray(list.items)) throw this.#badBody("GET", "/clusters", "a cluster list");
    return list;
  }

  /** Every cluster (optionally of one status), walking all pages (`clusterPages`). */
  async listAllClusters(query: { status?: ClusterStatus } = {}): Promise<ApiCluster[]> {
    const seen = new Map<string, ApiCluster>();
    // Clusters created or deleted while we page can shift items across pages: key by id.
    for await (const list of clusterPages(this, query)) for (const c of list.items) seen.set(c.id, c);
    return [...seen.values()];
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
    const startedLocal = this.#options.clock.now();
    const res = await this.#withRetry<Exchange | ApiCluster>(
      "POST",
      "/clusters",
      () => this.#exchange({ method: "POST", path: "/clusters", body }),
      {
        verify: async (error) => {
          // A status reply means the server is done with the request; silence means it may not be.
          const settleUntil = this.#options.clock.now() + (error instanceof NetworkError ? this.#options.settleWindowMs : 0);
          for (;;) {
            const all = await this.listAllClusters();
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
            const left = settleUntil - this.#options.clock.now();
            if (left <= 0) return undefined;
            await this.#options.clock.sleep(Math.min(left, 1_000));
          }
        },
      },
    );
    const created = isExchange(res) ? this.#json<ApiClusterSummary>(res, "POST", "/clusters") : res;
    if (created && typeof created.id === "string") claimClusterId(created.id);
    return created;
  }

  /** `GET /v1/clusters/{id}`: the full cluster. */
  async getCluster(id: string): Promise<ApiCluster> {
    const path = `/clusters/${seg(id)}`;
    return this.#json<ApiCluster>(await this.#request({ method: "GET", path }), "GET", path);
  }

  /**
   * `PATCH /v1/clusters/{id}` with `workers` and/or `node_size`. Returns the response body, or
   * the cluster fetched afterwards when the server answers without one. If a retry (after a lost
   * reply) is refused with 409 because the first attempt already started scaling, the cluster is
   * fetched and returned when it already has the requested values.
   */
  async updateCluster(id: string, patch: UpdateClusterRequest): Promise<ApiCluster> {
    const path = `/clusters/${seg(id)}`;
    const res = await this.#withRetry<Exchange | ApiCluster>("PATCH", path, () => this.#exchange({ method: "PATCH", path, body: patch }), {
      afterUnknownOutcome: async (error) => {
        if (!isConflict(error)) return undefined;
        const current = await this.getCluster(id);
        const applied =
          (patch.workers === undefined || current.workers === patch.workers) &&
          (patch.node_size === undefined || current.node_size === patch.node_size);
        return applied ? { value: current } : undefined;
      },
    });
    if (!isExchange(res)) return res;
    if (res.body.trim() === "") return this.getCluster(id);
    return this.#json<ApiCluster>(res, "PATCH", path);
  }

  /**
   * `DELETE /v1/clusters/{id}`. A 404 on a retry after a lost reply means the first attempt
   * deleted it: that is success, not an error.
   */
  async deleteCluster(id: string): Promise<void> {
    const path = `/clusters/${seg(id)}`;
    await this.#withRetry<Exchange | undefined>("DELETE", path, () => this.#exchange({ method: "DELETE", path }), {
      afterUnknownOutcome: async (error) => (isNotFound(error) ? { value: undefined } : undefined),
    });
  }

  /** `GET /v1/clusters/{id}/kubeconfig`: the YAML text, as sent (never parsed). */
  async getKubeconfig(id: string): Promise<string> {
    const res = await this.#request({
      method: "GET",
      path: `/clusters/${seg(id)}/kubeconfig`,
      accept: "text/yaml, application/yaml, text/plain, */*",
    });
    return res.body;
  }

  // ------------------------------------------------------------------------------------- nodes

  /** `GET /v1/clusters/{id}/nodes`: all nodes of a cluster. */
  async listNodes(clusterId: string): Promise<ApiNodeList> {
    const path = `/clusters/${seg(clusterId)}/nodes`;
    const list = this.#json<ApiNodeList>(await this.#request({ method: "GET", path }), "GET", path);
    if (!list || !Array.isArray(list.items)) throw this.#badBody("GET", path, "a node list");
    return list;
  }

  /** `GET /v1/clusters/{id}/nodes/{node_id}`: one node. */
  async getNode(clusterId: string, nodeId: string): Promise<ApiNode> {
    const path = `/clusters/${seg(clusterId)}/nodes/${seg(nodeId)}`;
    return this.#json<ApiNode>(await this.#request({ method: "GET", path }), "GET", path);
  }

  // ---------------------------------------------------------------------------------- plumbing

  /** An idempotent request with the standard retry policy. */
  #request(spec: RequestSpec): Promise<Exchange> {
    return this.#withRetry<Exchange>(spec.method, spec.path, () => this.#exchange(spec), {});
  }

  /**
   * Run `attempt` under p-retry: it counts the attempts, stops after `retries`, and calls
   * `onFailedAttempt`, where `decideRetry` (pure) decides whether to go on and how long to wait.
   * p-retry's own timer is set to 0 because its delays follow a fixed schedule (minTimeout, factor),
   * while this service says how long to wait in each response (Retry-After, the rate-limit reset).
   * p-retry's readme does the same for a custom delay: wait inside `onFailedAttempt` (so in 9.0,
   * the current, ESM-only line; 4.x is its CommonJS line). The wait is slept on the client's
   * clock, so tests run it in virtual time.
   */
  async #withRetry<T>(method: string, path: string, attempt: () => Promise<T>, hooks: RetryHooks<T>): Promise<T> {
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
  async #exchange(spec: RequestSpec): Promise<Exchange> {
    const fullPath = `/v1${spec.path}`;
    const ticket = this.#limiter ? await this.#limiter.acquire() : undefined;
    // axios' own timeout is a socket-idle timer: a server that trickles bytes never trips it.
    // This deadline bounds the whole exchange.
    const deadline = new AbortController();
    const timer = this.#options.timeoutMs > 0 ? setTimeout(() => deadline.abort(), this.#options.timeoutMs) : undefined;
    let response: AxiosResponse<string>;
    try {
      response = await this.#http.request<string>({
        signal: deadline.signal,
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
      const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
      const byDeadline = deadline.signal.aborted;
      const code = byDeadline
        ? "ETIMEDOUT"
        : typeof e.code === "string"
          ? e.code
          : typeof e.cause?.code === "string"
            ? e.cause.code
            : undefined;
      throw networkErrorFrom({
        method: spec.method,
        path: fullPath,
        code,
        detail: byDeadline
          ? `no complete response within ${this.#options.timeoutMs} ms`
          : typeof e.message === "string"
            ? e.message
            : undefined,
        timedOut: code === "ETIMEDOUT" || code === "ECONNABORTED",
        origin: new URL(this.endpoint).origin,
        secrets: [this.#token],
      });
    } finally {
      if (timer) clearTimeout(timer);
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
      if (response.status === 429) {
        // A refusal says the window is spent even when the headers are missing.
        if (info.remaining === undefined) info.remaining = 0;
        // Retry-After says exactly when to come back; the reset header is only a clock reading.
        const asked = serverRequestedDelay(headers, receivedAt);
        if (asked?.source === "Retry-After") {
          info.resetInMs = asked.delayMs;
          info.exact = true;
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

  #json<T>(res: Exchange, method: string, path: string): T {
    try {
      return JSON.parse(res.body) as T;
    } catch {
      throw this.#badBody(method, path, "JSON");
    }
  }

  #badBody(method: string, path: string, expected: string): ApiError {
    return new ApiError({
      status: 200,
      code: "invalid_response",
      message: `CMS API ${method} /v1${path} answered with a body that is not ${expected}; is the endpoint (${this.endpoint}) a Cluster Management Service?`,
      method,
      path: `/v1${path}`,
    });
  }
}

/**
 * Create a client: `options` are merged over the defaults (see {@link DEFAULT_CLIENT_OPTIONS}).
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

function retryInputOf(error: unknown, method: string, attempt: number): RetryInput | undefined {
  if (error instanceof NetworkError) return { method, networkError: true, networkCode: error.code, attempt };
  if (error instanceof ApiError) {
    return { method, status: error.status, code: error.code, attempt, headers: RESPONSE_HEADERS.get(error) };
  }
  return undefined;
}

function isExchange(x: unknown): x is Exchange {
  return typeof x === "object" && x !== null && "status" in x && "headers" in x && "body" in x && typeof (x as Exchange).body === "string";
}

function seg(id: string): string {
  if (typeof id !== "string" || id === "") throw new Error("CMS client: an id is required");
  return encodeURIComponent(id);
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * What leaves the client: our own error, stripped of the `attemptNumber` and `retriesLeft` p-retry
 * writes onto it (its public face is the documented fields only). Anything else
 * (a bug, an unexpected library error) is replaced by a clean error with a scrubbed message, so
 * no foreign object holding request headers can escape.
 */
function finalError(error: unknown, method: string, path: string, token: string): Error {
  if (error instanceof UnprovenOwnershipError) return error;
  if (error instanceof ApiError || error instanceof NetworkError) {
    const e = error as unknown as Record<string, unknown>;
    delete e.attemptNumber;
    delete e.retriesLeft;
    return error;
  }
  const text = error instanceof Error ? error.message : String(error);
  const clean = new Error(`CMS API ${method} ${path} failed: ${redact(text, [token])}`);
  return clean;
}
