import { ApiError } from "./api-error";

/** The resource is not in a state that allows the action (HTTP 409 or `conflict`). */
export class ConflictError extends ApiError {}
