/** The errors of the statuses the service names (docs/api-contract.md): what a caller tells apart by class. */
import { ApiError } from "./api-error";

/** The token is missing, invalid or expired (HTTP 401 or error code `unauthorized`). */
export class UnauthorizedError extends ApiError {}

/** The token lacks the permission or scope for the action (HTTP 403 or `forbidden`). */
export class ForbiddenError extends ApiError {}

/** The cluster, node or route does not exist (HTTP 404 or `not_found`). */
export class NotFoundError extends ApiError {}

/** The request body broke a rule (HTTP 400/422 or `validation_failed`/`invalid_json`). */
export class ValidationError extends ApiError {}

/** The resource is not in a state that allows the action (HTTP 409 or `conflict`). */
export class ConflictError extends ApiError {}

/** The plan's request limit was exceeded and retries did not get through (HTTP 429 or `rate_limited`). */
export class RateLimitedError extends ApiError {}

/** The service failed (HTTP 5xx). */
export class ServerError extends ApiError {}
