import { CmsError } from "../../shared/errors/cms-error";

/** Everything an {@link ApiError} is built from. */
export interface ApiErrorInit {
  /** HTTP status of the response. */
  status: number;
  /** Machine-readable `error` code from the body, or a code we derived when the body had none. */
  code: string;
  /** The full, user-facing message (server text plus our hint). Must already be free of secrets. */
  message: string;
  /** HTTP method of the failed request, upper case. */
  method: string;
  /** Path of the failed request including the `/v1` prefix, e.g. `/v1/clusters/cls_1`. */
  path: string;
  /** The server's own `message` text, if the body carried one (secrets already redacted). */
  serverMessage?: string;
  /** How long the server asked us to wait before trying again, when it said so. */
  retryAfterMs?: number;
}

/**
 * An error response from the Cluster Management Service.
 *
 * It deliberately carries only plain data (no request config, no headers, no response object):
 * HTTP library errors hold the `Authorization` header, and anything that reaches a Pulumi log
 * must never contain the token.
 */
export class ApiError extends CmsError {
  /** HTTP status of the response. */
  readonly status: number;
  /** Machine-readable error code (`unauthorized`, `not_found`, ...). */
  readonly code: string;
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Path of the failed request, including `/v1`. */
  readonly path: string;
  /** The server's own message text, without our hint. */
  readonly serverMessage?: string;
  /** Wait the server asked for (Retry-After or rate-limit reset), in milliseconds. */
  readonly retryAfterMs?: number;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    if (init.serverMessage !== undefined) this.serverMessage = init.serverMessage;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    // Keep `instanceof` working for subclasses even if this is compiled to ES5 somewhere.
    Object.setPrototypeOf(this, new.target.prototype);
  }
}
