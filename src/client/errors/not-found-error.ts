import { ApiError } from "./api-error";

/** The cluster, node or route does not exist (HTTP 404 or `not_found`). */
export class NotFoundError extends ApiError {}
