import { ApiError } from "./api-error";

/** The token is missing, invalid or expired (HTTP 401 or error code `unauthorized`). */
export class UnauthorizedError extends ApiError {}
