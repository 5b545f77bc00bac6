/**
 * One HTTP exchange with the service, through the rate limiter: axios never throws for a status,
 * and any failure becomes our own typed error (an HTTP library error never escapes: it carries
 * the Authorization header). What the retry decision needs of an error (its response headers,
 * whether it came from this machine) is noted here, off the error object ({@link retryInputOf}).
 */
import axios, { type AxiosInstance, type AxiosResponse } from "axios";
import type { Budget } from "./budget";
import { errorFromResponse, networkErrorFrom } from "./error-mapping";
import { ApiError, NetworkError } from "./errors";
import { parseDateHeader, parseRateLimitHeaders, parseRetryAfter, quoteHeader, toHeaderBag, type HeaderBag } from "./headers";
import { RateLimiter } from "./limiter";
import { sharedLimiter } from "./runtime";
import type { ResolvedClientOptions } from "./options";
import { PLAIN_HTTP_CODE, serverRequestedDelay, type RetryInput } from "./retry";
import { omitUndefined } from "@pulumi-cms/contract";

export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path below `/v1`, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Accept header; the kubeconfig is YAML. */
  accept?: string;
}

export interface Exchange {
  status: number;
  headers: HeaderBag;
  /** Raw body text: we parse JSON ourselves so a non-JSON body can never throw inside axios. */
  body: string;
}

/** The shortest time an exchange is given, however near the deadline it is sent. */
const MIN_EXCHANGE_MS = 1_000;
/** The longest delay `setTimeout` takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The HTTP side of one client: its axios instance, its limiter and its estimate of the server's clock. */
export class Transport {
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

  constructor(token: string, options: Omit<ResolvedClientOptions, "token">) {
    this.#token = token;
    this.#options = options;
    this.endpoint = options.endpoint;
    this.#limiter =
      options.limiter instanceof RateLimiter
        ? options.limiter
        : options.limiter
          ? sharedLimiter(options.runtime, options.endpoint, token)
          : undefined;
    this.#http = axios.create({
      baseURL: `${options.endpoint}/v1`,
      timeout: options.timeoutMs,
      // Every status is a response we handle ourselves; axios only throws when there is none.
      validateStatus: () => true,
      responseType: "text",
      transformResponse: [(data: unknown) => data],
      // A redirect would replay the bearer token to wherever it points.
      maxRedirects: 0,
      // A body is read into memory whole: a runaway one must fail, not take the process down.
      maxContentLength: options.maxResponseBytes,
      maxBodyLength: options.maxResponseBytes,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: false },
    });
  }

  /** Server clock minus local clock, from the latest `Date` header. */
  get serverOffsetMs(): number {
    return this.#serverOffsetMs;
  }

  /** One HTTP exchange through the limiter. Resolves only for 2xx; throws our typed errors. */
  async exchange(spec: RequestSpec, budget: Budget): Promise<Exchange> {
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
      const raw = typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : undefined;
      // An `https://` endpoint whose server answered the TLS hello in plain HTTP: Node says EPROTO
      // with OpenSSL's report, which names neither the cause nor the fix.
      const plainHttp = !expired && (raw === PLAIN_HTTP_CODE || (raw === "EPROTO" && /wrong version number/i.test(message ?? "")));
      const code = expired ? "ETIMEDOUT" : tooLarge ? "ERR_RESPONSE_TOO_LARGE" : plainHttp ? PLAIN_HTTP_CODE : raw;
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
            : plainHttp
              ? undefined
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

/** What the retry decision needs of a failed attempt; undefined for an error no exchange made. */
export function retryInputOf(error: unknown, method: string, attempt: number): RetryInput | undefined {
  if (error instanceof NetworkError) {
    return { method, networkError: true, networkCode: error.code, attempt, loopback: ON_THIS_MACHINE.has(error) };
  }
  if (error instanceof ApiError) {
    return { method, status: error.status, code: error.code, attempt, headers: RESPONSE_HEADERS.get(error) };
  }
  return undefined;
}

/** True for the answer of an exchange, false for a value a recovery hook returned instead. */
export function isExchange(x: unknown): x is Exchange {
  return typeof x === "object" && x !== null && "status" in x && "headers" in x && "body" in x && typeof (x as Exchange).body === "string";
}
