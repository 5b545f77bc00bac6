/**
 * The HTTP server: fastify with the `/v1` service routes (their table: v1-routes.ts) and the
 * `/_emulator/` control routes (control/routes.ts). What is checked before any route's handler runs
 * is here.
 *
 * Order of checks on `/v1` (docs/api-contract.md): request counted → injected faults →
 * route (404/405) → token (401) → rate limit (429) → permission (403) → body (413/400) →
 * cluster exists (404) → cluster in scope (403) → cluster status (409).
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { createServer, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { canonicalUrl } from "./canonical-url";
import { requireCreateScope, requirePermission, tryAuthenticate, type Principal } from "./auth";
import { ServiceError, clip, internalError } from "./errors";
import type { Fault } from "./faults";
import { registerControlRoutes } from "../control/routes";
import type { ControlExtras } from "../control/in-process";
import type { ConnectionLimits, EmulatorControl, Permission } from "../types";
import { registerNoKubernetesRoutes } from "./no-kubernetes";
import { ALL_METHODS, registerV1Routes } from "./v1-routes";
import { formatValidationError } from "./schemas";
import type { EmulatorState } from "../model/state";

/** Largest accepted request body: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;
/** Deepest nesting of objects and arrays a request body may have (the API's bodies have one level). */
export const MAX_BODY_DEPTH = 32;

/** True when the JSON text nests objects and arrays deeper than `limit`: one pass, before parsing. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated token of a `/v1` request. */
    principal: Principal | null;
    /** Delay from latency faults, served after the body is read and before the handler runs. */
    faultLatencyMs: number;
  }
  interface FastifyContextConfig {
    /** Permission a `/v1` route needs, and the action named in 403 messages. */
    permission?: Permission;
    action?: string;
    /** Set on the catch-all route of a `/v1` path: the methods it does allow (405). */
    allow?: string[];
    /** The route acts on no existing cluster (create): scope must be `*` or `cluster:*`. */
    globalScope?: boolean;
  }
}

/** Defaults of {@link ConnectionLimits}. */
export const CONNECTION_LIMITS: Required<ConnectionLimits> = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 4096 };

/** Options of {@link buildServer}. */
export interface ServerOptions {
  logger?: boolean;
  adminToken: string;
  control: EmulatorControl & ControlExtras;
  connections?: ConnectionLimits;
}

/**
 * The service's `{error, message}` answer written straight to a socket, for what the HTTP layer
 * refuses before any request object exists (malformed, too large, too slow); then the
 * connection is closed, since the rest of what the client sends cannot be trusted to frame a request.
 */
function answerOnSocket(socket: Duplex, status: number, reason: string, error: string, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error, message });
  // Destroyed once written: a client that never reads must not keep the connection open.
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** Node's HTTP server with the time limits and the connection cap (see {@link ConnectionLimits}). */
function httpServer(limits: Required<ConnectionLimits>, handler: Parameters<typeof createServer>[1]): Server {
  const server = createServer(
    {
      // Answered by the onRequest hook in the service's format instead of an empty 400.
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often the time limits are checked (Node's default, 30 s, would double them).
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  // Any Expect but 100-continue (which Node answers itself).
  server.on("checkExpectation", (_req, res) => {
    const body = JSON.stringify({ error: "expectation_failed", message: "Only Expect: 100-continue is supported" });
    res.writeHead(417, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      connection: "close",
    });
    res.end(body);
  });
  return server;
}

/** Builds (does not start) the fastify app serving `state`. */
export function buildServer(state: EmulatorState, opts: ServerOptions): FastifyInstance {
  const limits = { ...CONNECTION_LIMITS, ...opts.connections };
  const app = Fastify({
    serverFactory: (handler) => httpServer(limits, handler),
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
        answerOnSocket(
          socket,
          408,
          "Request Timeout",
          "request_timeout",
          `The request was not received within ${limits.requestTimeoutMs / 1000} s (headers within ${limits.headersTimeoutMs / 1000} s)`,
        );
      } else if (err.code === "HPE_HEADER_OVERFLOW") {
        answerOnSocket(socket, 431, "Request Header Fields Too Large", "headers_too_large", "Request headers exceed the limit of 16 KiB");
      } else if (err.code === "ECONNRESET" || err.code === "EPIPE") {
        socket.destroy();
      } else {
        answerOnSocket(socket, 400, "Bad Request", "bad_request", "Malformed request: it is not valid HTTP/1.1");
      }
    },
    logger: opts.logger
      ? {
          // stderr: stdout belongs to the listening line and the generated tokens.
          stream: process.stderr,
          // Request lines only: never headers (tokens) nor bodies.
          serializers: {
            req: (req: FastifyRequest) => ({ method: req.method, url: req.url }),
          },
        }
      : false,
    bodyLimit: BODY_LIMIT,
    // Before routing: every check below sees the path the router matched (see canonical-url.ts).
    rewriteUrl: (req) => canonicalUrl(req.url ?? "/"),
    // Long ids are just unknown clusters (404), not a router error.
    // Past Node's 16 KiB header limit: any id the HTTP layer lets through is routed (then 401/404).
    routerOptions: { maxParamLength: 65_536 },
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    ajv: {
      // Strict: "3" is not a number and unknown fields are errors, not silently dropped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
    schemaErrorFormatter: (errors, dataVar) => formatValidationError(errors as never, dataVar),
    frameworkErrors: (err, _req, reply) => {
      void (reply as FastifyReply).code(400).send({
        error: "bad_request",
        message: `Malformed request: ${err.code === "FST_ERR_BAD_URL" ? "the URL is not valid" : "it cannot be parsed"}`,
      });
    },
  });
  for (const method of ALL_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  app.decorateRequest("principal", null);
  app.decorateRequest("faultLatencyMs", 0);

  // Bodies are parsed as JSON whatever their Content-Type, so `curl -d '{...}'` works.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(null, undefined);
    // Bounded before parsing: what a deeply nested value costs the parser and the validation
    // messages grows with its depth.
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
      return done(
        new ServiceError(
          400,
          "validation_failed",
          `Request body nests objects and arrays deeper than the limit of ${MAX_BODY_DEPTH} levels`,
        ),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new ServiceError(400, "invalid_json", `Request body is not valid JSON: ${clip((e as Error).message, 120)}`), undefined);
    }
  });

  app.addHook("onRequest", async (req) => {
    if (req.headers.host === undefined && req.raw.httpVersionMinor >= 1) {
      throw new ServiceError(400, "bad_request", "Malformed request: the Host header is missing (HTTP/1.1 requires it)");
    }
  });

  app.addHook("onRequest", async (req, reply) => {
    const path = pathOf(req.url);
    const { permission, allow } = req.routeOptions.config ?? {};
    // A `/v1` route, or an unknown path under `/v1` (counted, then 404).
    if (!permission && !allow && path !== "/v1" && !path.startsWith("/v1/")) return;
    const route = req.routeOptions.url;
    state.count(`${req.method} ${route ?? "(unmatched)"}`);
    if (!state.faults.empty) {
      const outcome = state.faults.take(req.method, path, route);
      if (outcome.fault) {
        if (outcome.latencyMs > 0) await sleep(outcome.latencyMs);
        return answerFault(outcome.fault, req, reply);
      }
      req.faultLatencyMs = outcome.latencyMs;
    }
    const now = state.now();
    if (allow || !permission) {
      // 404 / 405 win over 401 and 429, but a request with a valid token still uses its quota
      // and gets the rate-limit headers, like every other answer to that token.
      const known = tryAuthenticate(state.tokens, req.headers.authorization, now);
      if (known) void reply.headers(state.limiter.count(known.token, known.plan, now));
    }
    if (allow) {
      // Before the body is read: a wrong method is 405 whatever the body holds.
      throw new ServiceError(405, "method_not_allowed", `Method ${req.method} is not allowed on ${route}; allowed: ${allow.join(", ")}`, {
        allow: allow.join(", "),
      });
    }
    if (!permission) return; // unknown routes answer 404 before authentication
    const principal = state.tokens.authenticate(req.headers.authorization, now);
    const rate = state.limiter.hit(principal.token, principal.plan, now);
    void reply.headers(rate.headers);
    requirePermission(principal, permission, req.routeOptions.config.action ?? "this action");
    if (req.routeOptions.config.globalScope) requireCreateScope(principal);
    req.principal = principal;
  });

  app.addHook("onSend", async (req, reply, payload) => {
    // Answered before the body was read (401, 404, 405, 429...): what follows on the connection
    // is the rest of that body, not a request, and a client that stalls must not hold it.
    if (!req.raw.complete) void reply.header("connection", "close");
    return payload;
  });

  // A slow service is slow at the work, not at reading the request: the delay comes once the body
  // is in, so the operation happens even when the client has stopped waiting for the answer
  // (which is how a lost reply of a slow create looks to a client).
  app.addHook("preHandler", async (req) => {
    if (req.faultLatencyMs > 0) await sleep(req.faultLatencyMs);
  });

  function answerFault(f: Fault, req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    if (f.kind === "drop") {
      // No response at all: the client sees a reset connection.
      reply.hijack();
      req.raw.socket.destroy();
      return reply;
    }
    if (f.kind === "rate_limit") {
      const retryAfter = f.retryAfterSeconds ?? 1;
      const headers: Record<string, string> = { "retry-after": String(retryAfter) };
      try {
        const p = state.tokens.authenticate(req.headers.authorization, state.now());
        headers["x-ratelimit-limit"] = String(state.limiter.limitOf(p.plan));
        headers["x-ratelimit-remaining"] = "0";
        headers["x-ratelimit-reset"] = String(Math.ceil(state.now() / 1000) + retryAfter);
      } catch {
        // Unknown token: the storm still answers 429, just without the window headers.
      }
      return reply
        .code(429)
        .headers(headers)
        .send({ error: "rate_limited", message: `Rate limit exceeded; retry in ${retryAfter} s` });
    }
    const status = f.status ?? 503;
    const body =
      status === 500
        ? internalError().toBody()
        : status === 502
          ? { error: "bad_gateway", message: "Bad gateway: the upstream service did not answer" }
          : { error: "unavailable", message: "Service temporarily unavailable" };
    return reply.code(status).send(body);
  }

  app.setErrorHandler((err: FastifyError | ServiceError, req, reply) => {
    let api: ServiceError;
    if (err instanceof ServiceError) api = err;
    else if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      api = new ServiceError(413, "payload_too_large", `Request body exceeds the limit of 1 MiB (${BODY_LIMIT} bytes)`);
    } else if (err.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH") {
      api = new ServiceError(400, "bad_request", "Request body length does not match its Content-Length header");
    } else if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
      api = new ServiceError(400, "bad_request", "Malformed request");
    } else {
      req.log.error({ err }, "internal error");
      api = internalError();
    }
    void reply.code(api.statusCode).headers(api.headers).send(api.toBody());
  });

  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: "not_found", message: `No route ${req.method} ${clip(pathOf(req.url))}` });
  });

  registerV1Routes(app, state);
  registerControlRoutes(app, state, opts.adminToken, opts.control);
  registerNoKubernetesRoutes(app, () => state.kubernetes !== undefined);
  return app;
}

/** The path of a request URL, without the query string. */
export function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
