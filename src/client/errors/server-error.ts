import { ApiError } from "./api-error";

/** The service failed (HTTP 5xx). */
export class ServerError extends ApiError {}
