import { ApiError } from "./api-error";

/** The plan's request limit was exceeded and retries did not get through (HTTP 429 or `rate_limited`). */
export class RateLimitedError extends ApiError {}
