import { ApiError } from "./api-error";
import { ConflictError, NotFoundError } from "./status-errors";

// Pulumi may load this package twice (program and dynamic-provider closure), so a plain
// `instanceof` can miss an error made by the other copy: fall back to the plain fields.
function hasShape(e: unknown): e is { name?: unknown; status?: unknown; code?: unknown } {
  return typeof e === "object" && e !== null;
}

/** True for any error response from the service (any copy of this package). */
export function isApiError(e: unknown): e is ApiError {
  if (e instanceof ApiError) return true;
  return hasShape(e) && typeof e.status === "number" && typeof e.code === "string" && "path" in e;
}

/** True when `e` says the cluster/node does not exist (404 or `not_found`). */
export function isNotFound(e: unknown): boolean {
  if (e instanceof NotFoundError) return true;
  return hasShape(e) && (e.name === "NotFoundError" || (isApiError(e) && (e.status === 404 || e.code === "not_found")));
}

/** HTTP status of an API error, if it has one. */
export function statusOf(e: unknown): number | undefined {
  return hasShape(e) && typeof e.status === "number" ? e.status : undefined;
}

/**
 * True for failures worth waiting out (server errors, rate limiting, lost connections), false
 * for answers that will not change (401, 403, 400, 404...).
 */
export function isTransient(e: unknown): boolean {
  if (!hasShape(e)) return false;
  if (e.name === "NetworkError") return true;
  const status = statusOf(e);
  return status !== undefined && (status >= 500 || status === 429);
}

/** True when `e` says the resource's state does not allow the action (409 or `conflict`). */
export function isConflict(e: unknown): boolean {
  if (e instanceof ConflictError) return true;
  return hasShape(e) && (e.name === "ConflictError" || (isApiError(e) && (e.status === 409 || e.code === "conflict")));
}
