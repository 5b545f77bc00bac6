import { ApiError } from "./api-error";

/** The request body broke a rule (HTTP 400/422 or `validation_failed`/`invalid_json`). */
export class ValidationError extends ApiError {}
