/**
 * What the clients of one process share: one rate limiter per endpoint + token (the service
 * counts per token, so many resources of one stack draw from one budget), and the cluster ids its
 * creates received, so that the lost-reply recovery of one create never offers another create's
 * cluster as a candidate (`shared/domain/ownership.ts` decides the rest).
 *
 * The host's entry makes the process's and hands it down in the client options
 * (`ClientOptions.runtime`); a client made without one shares this module's, which every such
 * client of this copy of the package shares.
 */
import { createHash } from "node:crypto";
import { RateLimiter } from "./limiter";

/** The limiters and the claimed ids of the clients that share it. */
export interface ClientRuntime {
  /** Rate limiters by endpoint + hashed token ({@link limiterKey}). */
  readonly limiters: Map<string, RateLimiter>;
  /** Cluster ids already returned by a create, oldest first. */
  readonly claimedIds: Set<string>;
}

/** A client runtime with nothing in it. */
export function newClientRuntime(): ClientRuntime {
  return { limiters: new Map(), claimedIds: new Set() };
}

let unshared: ClientRuntime | undefined;

/** The runtime of the clients made without one. */
export function defaultClientRuntime(): ClientRuntime {
  unshared ??= newClientRuntime();
  return unshared;
}

/**
 * Registry key for an endpoint + token. The token is hashed: the key may show up in a debugger
 * or a heap dump label, and must not reveal the secret.
 */
export function limiterKey(endpoint: string, token: string): string {
  const digest = createHash("sha256").update(token).digest("hex").slice(0, 16);
  return `${endpoint}#${digest}`;
}

/** The runtime's limiter of an endpoint + token, created on first use. */
export function sharedLimiter(runtime: ClientRuntime, endpoint: string, token: string): RateLimiter {
  const key = limiterKey(endpoint, token);
  let limiter = runtime.limiters.get(key);
  if (!limiter) {
    limiter = new RateLimiter();
    runtime.limiters.set(key, limiter);
  }
  return limiter;
}

/** Bounded: only recent creations can be confused with a lost one. */
const MAX_CLAIMED = 10_000;

/** Record that a create call returned `id`. */
export function claimClusterId(runtime: ClientRuntime, id: string): void {
  const set = runtime.claimedIds;
  set.add(id);
  if (set.size > MAX_CLAIMED) set.delete(set.values().next().value as string);
}
