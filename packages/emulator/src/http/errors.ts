/**
 * Typed API errors, rendered in the service's own `{error, message}` body.
 *
 * Every failure the emulator reports goes through {@link ServiceError} so that status code,
 * machine-readable code and human-readable message stay together and cannot drift apart.
 */

/** Machine-readable error codes the emulator can answer with (see docs/api-contract.md). */
export type ErrorCode =
  | "unauthorized"
  | "forbidden"
  | "validation_failed"
  | "invalid_json"
  | "bad_request"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "request_timeout"
  | "headers_too_large"
  | "expectation_failed"
  | "rate_limited"
  | "internal"
  | "bad_gateway"
  | "unavailable"
  | "storage_unavailable"
  | "quota_exceeded";

/**
 * An error the emulated service answers with: it carries its HTTP status, code, message and
 * headers. (The client's `ApiError` is the same answer seen from the other side.)
 */
export class ServiceError extends Error {
  /** Extra response headers (Allow, Retry-After, ...). */
  readonly headers: Record<string, string>;
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ServiceError";
    this.headers = headers;
  }

  /** Same as {@link statusCode}: lets callers treat this and the HTTP client's ControlError alike. */
  get status(): number {
    return this.statusCode;
  }

  /** The JSON body sent to the client. */
  toBody(): { error: ErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}

/** 400 `validation_failed`; the message names the field and says what is expected of it. */
export function validationFailed(message: string): ServiceError {
  return new ServiceError(400, "validation_failed", message);
}

/** 404 `not_found` for an unknown cluster. */
export function clusterNotFound(clusterId: string): ServiceError {
  return new ServiceError(404, "not_found", `Cluster ${clip(clusterId)} not found`);
}

/** 404 `not_found` for an unknown node of a known cluster. */
export function nodeNotFound(clusterId: string, nodeId: string): ServiceError {
  return new ServiceError(404, "not_found", `Node ${clip(nodeId)} not found in cluster ${clip(clusterId)}`);
}

/** 409 `conflict`. */
export function conflict(message: string): ServiceError {
  return new ServiceError(409, "conflict", message);
}

/** 500 `internal`: never says what went wrong inside. */
export function internalError(): ServiceError {
  return new ServiceError(500, "internal", "Internal error");
}

/**
 * 503 `storage_unavailable`: a change that could not be written to the state file (`--state`), and
 * so was not made. Retry-After: the client may send it again.
 */
export function storageUnavailable(file: string, cause: string): ServiceError {
  return new ServiceError(
    503,
    "storage_unavailable",
    `The change was not saved: the state file ${file} cannot be written (${cause}). Nothing was changed; retry later`,
    { "retry-after": "1" },
  );
}

/**
 * Shortens client-supplied text before echoing it in a message, so a 1 MiB garbage id
 * does not come back in the error body.
 */
export function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
