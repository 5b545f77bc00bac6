/**
 * Client of the Cluster Management Service v1 API: typed methods, typed errors, retries that
 * never duplicate a cluster, and a process-wide rate limiter per endpoint + token.
 */
export { CmsClient, createClient, type CreateOptions } from "./client";
export type { CallOptions } from "./budget";
export { clusterPages, isLastPage, listPageCount, type ClusterLister } from "./pagination";
export { normalizeEndpoint } from "./endpoint";
export {
  DEFAULT_CLIENT_OPTIONS,
  resolveClientOptions,
  type ClientOptions,
  type ResolvedClientOptions,
  type RetryInfo,
} from "./options";
export * from "./errors";
export { redact, SECRET_MARKER } from "./redact";
export {
  errorFromResponse,
  errorClassFor,
  networkErrorFrom,
  parseErrorBody,
  type ApiErrorClass,
  type ErrorResponse,
  type NoResponse,
} from "./error-mapping";
export {
  parseRetryAfter,
  parseRateLimitReset,
  parseRateLimitHeaders,
  parseDateHeader,
  detectResetUnit,
  toHeaderBag,
  type HeaderBag,
  type RateLimitInfo,
  type ResetUnit,
} from "./headers";
export {
  decideRetry,
  backoffDelay,
  outcomeUnknown,
  serverRequestedDelay,
  DEFAULT_RETRY_POLICY,
  type RetryInput,
  type RetryPolicy,
  type RetryDecision,
} from "./retry";
export {
  RateLimiter,
  computePacingDelay,
  DEFAULT_LIMITER_OPTIONS,
  type LimiterOptions,
  type LimiterState,
  type LimiterBudget,
  type LimiterTicket,
  type PacingOptions,
} from "./limiter";
export { sharedLimiter, limiterKey, newClientRuntime, type ClientRuntime } from "./runtime";
export type { NameProof } from "../shared/domain/ownership";
export { PACKAGE_VERSION, DEFAULT_USER_AGENT } from "./version";
export * from "./wire-types";
