/**
 * Turning a failed HTTP exchange into one of our typed errors. Pure: no I/O, so every mapping
 * rule and every message is unit-tested without a server.
 */
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  ValidationError,
} from "./errors";
import type { ApiErrorInit } from "./errors";
import { redact } from "./redact";
import { PLAIN_HTTP_CODE } from "./retry";
import { parseApiPath } from "../shared/domain/api-paths";

/** The constructor of one of the typed API errors. */
export type ApiErrorClass = new (init: ApiErrorInit) => ApiError;

/** What we know about an error response. */
export interface ErrorResponse {
  status: number;
  /** Raw response body as text (never pre-parsed: it may not be JSON). */
  body: string | undefined;
  method: string;
  /** Full path including `/v1`. */
  path: string;
  /** Wait requested by the server, if any. */
  retryAfterMs?: number;
  /** Secrets to scrub from anything the server echoes back (the token). */
  secrets?: readonly string[];
}

/** Body codes that decide the class when the status alone does not. */
const CLASS_BY_CODE: Record<string, ApiErrorClass> = {
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  validation_failed: ValidationError,
  invalid_json: ValidationError,
  invalid_request: ValidationError,
  bad_request: ValidationError,
  conflict: ConflictError,
  rate_limited: RateLimitedError,
};

/** Statuses whose meaning is unambiguous: the status decides regardless of the body code. */
const CLASS_BY_STATUS: Record<number, ApiErrorClass> = {
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  410: NotFoundError,
  429: RateLimitedError,
};

/** Default code when the body has none. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "validation_failed",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "not_found",
  422: "validation_failed",
  429: "rate_limited",
};

/**
 * Which error class a status + body code maps to: the status first; the body code when the
 * status is not one of the unambiguous ones (e.g. 400 with `not_found`); 400/422 otherwise mean
 * validation; any 5xx is a server error. `rate_limited` also wins over 403, which some services
 * use for throttling.
 */
export function errorClassFor(status: number, code: string | undefined): ApiErrorClass {
  if (status >= 500) return ServerError;
  if (status === 403 && code === "rate_limited") return RateLimitedError;
  const byStatus = CLASS_BY_STATUS[status];
  if (byStatus) return byStatus;
  const byCode = code !== undefined ? CLASS_BY_CODE[code] : undefined;
  if (byCode) return byCode;
  if (status === 400 || status === 422) return ValidationError;
  return ApiError;
}

/** Parse an error body: JSON `{error, message}` when it is that, else a short clean text. */
export function parseErrorBody(body: string | undefined): { code?: string; message?: string } {
  if (body === undefined) return {};
  const trimmed = body.trim();
  if (trimmed === "") return {};
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const o = parsed as Record<string, unknown>;
      const code = typeof o.error === "string" ? o.error : undefined;
      const message = typeof o.message === "string" ? o.message : typeof o.error_description === "string" ? o.error_description : undefined;
      return { code, message };
    }
    return {};
  } catch {
    // A proxy's HTML page or a plain-text body: keep a short, single-line excerpt unless it is
    // markup, which would only be noise in a Pulumi diagnostic.
    if (/<[a-z!/]/i.test(trimmed)) return {};
    const line = trimmed.replace(/\s+/g, " ");
    return { message: line.length > 200 ? `${line.slice(0, 200)}…` : line };
  }
}

/** What the request was trying to do, for messages: "creating clusters", "deleting cluster `x`". */
export function describeAction(method: string, path: string): { action: string; permission: "read" | "write"; scopes: string } {
  const m = method.toUpperCase();
  const { clusterId, nodeId, sub } = parseApiPath(path) ?? {};
  if (!clusterId) {
    if (m === "POST") return { action: "creating clusters", permission: "write", scopes: "`*` or `cluster:*`" };
    return { action: "listing clusters", permission: "read", scopes: "`*` or `cluster:*`" };
  }
  const scopes = `\`*\`, \`cluster:*\` or \`cluster:${clusterId}\``;
  const c = `cluster \`${clusterId}\``;
  if (m === "PATCH") return { action: `modifying ${c}`, permission: "write", scopes };
  if (m === "DELETE") return { action: `deleting ${c}`, permission: "write", scopes };
  if (sub === "kubeconfig") return { action: `downloading the kubeconfig of ${c}`, permission: "read", scopes };
  if (sub === "nodes" && nodeId) return { action: `reading node \`${nodeId}\` of ${c}`, permission: "read", scopes };
  if (sub === "nodes") return { action: `listing the nodes of ${c}`, permission: "read", scopes };
  return { action: `reading ${c}`, permission: "read", scopes };
}

/** What the user should do about an error of this class, for this request. */
export function hintFor(cls: ApiErrorClass, method: string, path: string, retryAfterMs?: number): string | undefined {
  const { clusterId, nodeId } = parseApiPath(path) ?? {};
  const what = describeAction(method, path);
  switch (cls) {
    case UnauthorizedError:
      return `The API token was rejected (missing, invalid, expired or revoked): use a valid token.`;
    case ForbiddenError:
      return (
        `${capitalise(what.action)} needs a token with the \`${what.permission}\` permission and scope ${what.scopes}; ` +
        "use such a token."
      );
    case NotFoundError:
      if (nodeId && clusterId) return `Node \`${nodeId}\` of cluster \`${clusterId}\` does not exist.`;
      if (clusterId) return `Cluster \`${clusterId}\` does not exist (it may have been deleted).`;
      return undefined;
    case ConflictError:
      return clusterId
        ? `Cluster \`${clusterId}\` is busy (provisioning, scaling, upgrading or deleting): wait until it is \`running\` and try again.`
        : undefined;
    case RateLimitedError: {
      const wait = retryAfterMs !== undefined ? ` (the server asked to wait ${Math.ceil(retryAfterMs / 1000)} s)` : "";
      return `The plan's request limit was exceeded and retries did not get through${wait}: run again later, lower Pulumi's parallelism, or use a plan with a higher limit.`;
    }
    case ServerError:
      return "The service failed; retries did not help. Try again later.";
    case ValidationError:
      return "Check the inputs of the resource.";
    default:
      return undefined;
  }
}

/** True when `text` names what the 404 of `path` is about: its node, else its cluster. */
function namesMissing(text: string, path: string): boolean {
  const { clusterId, nodeId } = parseApiPath(path) ?? {};
  const missing = nodeId ?? clusterId;
  return missing !== undefined && text.includes(missing);
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Build the typed error for an error response. The message reads
 * `CMS API <METHOD> <path> failed with <status> <code>: <server message>. <hint>` and never
 * contains a secret, even if the server echoed one.
 */
export function errorFromResponse(res: ErrorResponse): ApiError {
  const method = res.method.toUpperCase();
  const parsed = parseErrorBody(res.body);
  const cls = errorClassFor(res.status, parsed.code);
  const code = parsed.code ?? CODE_BY_STATUS[res.status] ?? (res.status >= 500 ? "server_error" : `http_${res.status}`);
  const serverMessage = parsed.message !== undefined ? redact(parsed.message, res.secrets) : undefined;
  // The service's own words for a refused token, or for a missing cluster or node that they name,
  // already say what the hint would: said once.
  const saidByServer =
    serverMessage !== undefined && (cls === UnauthorizedError || (cls === NotFoundError && namesMissing(serverMessage, res.path)));
  const hint = saidByServer ? undefined : hintFor(cls, method, res.path, res.retryAfterMs);
  const parts = [`CMS API ${method} ${res.path} failed with ${res.status} ${code}`];
  let message = parts[0];
  if (serverMessage) message += `: ${serverMessage.replace(/\.$/, "")}.`;
  else message += ".";
  if (hint) message += ` ${hint}`;
  return new cls({
    status: res.status,
    code: redact(code, res.secrets),
    message: redact(message, res.secrets),
    method,
    path: res.path,
    serverMessage,
    retryAfterMs: res.retryAfterMs,
  });
}

/** Low-level facts about a request that got no response. */
export interface NoResponse {
  method: string;
  path: string;
  /** `ECONNRESET`, `ECONNREFUSED`, `ECONNABORTED`, `ETIMEDOUT`, ... */
  code?: string;
  /** The HTTP library's message (scrubbed here, never trusted to be clean). */
  detail?: string;
  timedOut?: boolean;
  /** Origin of the endpoint, for "is it reachable?" advice (no credentials, no path). */
  origin?: string;
  /** True when the endpoint is on this machine (a loopback host or address). */
  loopback?: boolean;
  secrets?: readonly string[];
}

/** Build the {@link NetworkError} for a request that got no response. */
export function networkErrorFrom(n: NoResponse): NetworkError {
  const method = n.method.toUpperCase();
  const code = n.timedOut ? "ETIMEDOUT" : n.code || "ENETWORK";
  const detail = n.detail ? redact(n.detail, n.secrets) : undefined;
  const where = n.origin ? ` ${advice(code, n.origin, n.loopback === true)}` : "";
  const what = n.timedOut
    ? "timed out without a response"
    : code === "ERR_RESPONSE_TOO_LARGE"
      ? "answered with a body too large to read"
      : code === PLAIN_HTTP_CODE
        ? "got no TLS handshake"
        : "got no response";
  const message = `CMS API ${method} ${n.path} ${what} (${code}${detail && detail !== code ? `: ${detail}` : ""}).${where}`;
  return new NetworkError({ method, path: n.path, code, message: redact(message, n.secrets), timedOut: n.timedOut });
}

/** What to check, for a request to `origin` that failed with `code`. */
function advice(code: string, origin: string, loopback: boolean): string {
  if (code === "ECONNREFUSED" && loopback) {
    return `Nothing accepts connections at ${origin} on this machine: start the service (or the emulator) there, or correct the endpoint's port.`;
  }
  if (code === "ENOTFOUND") return `The host name of the endpoint ${origin} does not resolve: check its spelling.`;
  if (code === PLAIN_HTTP_CODE) return `The endpoint ${origin} speaks plain HTTP: use ${origin.replace(/^https:/, "http:")}.`;
  if (code === "ERR_RESPONSE_TOO_LARGE") return `Check that the endpoint ${origin} is a Cluster Management Service.`;
  return `Check that the endpoint ${origin} is reachable.`;
}
