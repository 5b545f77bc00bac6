import { ApiError } from "./api-error";

/** The token lacks the permission or scope for the action (HTTP 403 or `forbidden`). */
export class ForbiddenError extends ApiError {}
