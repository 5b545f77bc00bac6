import { CmsError } from "../../shared/errors/cms-error";

/** Everything a {@link NetworkError} is built from. */
export interface NetworkErrorInit {
  /** HTTP method of the failed request. */
  method: string;
  /** Path of the failed request, including `/v1`. */
  path: string;
  /** Low-level cause code, e.g. `ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`. */
  code: string;
  /** User-facing message, already free of secrets. */
  message: string;
  /** True when the request hit the client-side timeout. */
  timedOut?: boolean;
}

/**
 * No HTTP response arrived: the connection was refused, reset or timed out.
 *
 * Not an {@link ApiError} (there is no status). Like ApiError it carries only plain data, never
 * the HTTP library's error (which holds the request headers, token included).
 */
export class NetworkError extends CmsError {
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Path of the failed request, including `/v1`. */
  readonly path: string;
  /** Low-level cause code (`ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, ...). */
  readonly code: string;
  /** True when the client-side timeout fired. */
  readonly timedOut: boolean;

  constructor(init: NetworkErrorInit) {
    super(init.message);
    this.name = new.target.name;
    this.method = init.method;
    this.path = init.path;
    this.code = init.code;
    this.timedOut = init.timedOut ?? false;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}
