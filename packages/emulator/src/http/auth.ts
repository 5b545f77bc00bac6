/**
 * Service tokens: who may call `/v1`, with which permissions, on which clusters.
 *
 * Decisions (docs/api-contract.md): permissions are independent (`write` does not imply
 * `read`, `admin` grants neither); scopes `*` and `cluster:*` cover every cluster,
 * `cluster:<id>` one cluster (the full `cls_…` id; the bare hex part is accepted too).
 */
import { ServiceError, clip, validationFailed } from "./errors";
import { newSecret } from "../model/ids";
import type { Permission, Plan, TokenSpec } from "../types";

export const PERMISSIONS: readonly Permission[] = ["read", "write", "admin"];
export const PLANS: readonly Plan[] = ["community", "pro", "enterprise"];

/** A token as held in memory. */
export interface Principal {
  token: string;
  permissions: ReadonlySet<Permission>;
  scope: string;
  /** The cluster id of a `cluster:<id>` scope; undefined for `*` and `cluster:*`. */
  clusterId?: string;
  plan: Plan;
  /** Epoch ms; undefined when the token never expires. */
  expiresAt?: number;
  /** What its creator called it; never used for a decision. */
  name?: string;
}

/** `2026-12-31T23:59:59Z`, with optional fractions and an offset instead of `Z`. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const SCOPE = /^(\*|cluster:\*|cluster:[A-Za-z0-9_-]{1,100})$/;

/** An expiry as the service's command-line client takes it: a whole number of days, hours, minutes or seconds. */
const DURATION = /^([1-9]\d{0,5})([dhms])$/;
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** Milliseconds of a duration such as `30d`, `12h`, `90m` or `45s`; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2]] : undefined;
}

const FIELDS = ["token", "name", "permissions", "scope", "plan", "expires_at", "expires_in"];

/**
 * Checks a token spec (from `--tokens`, `addToken` or the control API) and turns it into a
 * {@link Principal}. Throws 400 `validation_failed` naming the field and the rule.
 */
export function toPrincipal(spec: unknown, where = "token", now = Date.now()): Principal {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw validationFailed(`${where} must be an object with token, permissions, scope and plan`);
  }
  const s = spec as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (!FIELDS.includes(key)) {
      throw validationFailed(`${where}.${clip(key, 40)} is not a known field; allowed: ${FIELDS.join(", ")}`);
    }
  }
  if (s.name !== undefined && (typeof s.name !== "string" || !/^[\x20-\x7e]{1,100}$/.test(s.name))) {
    throw validationFailed(`${where}.name must be a string of 1 to 100 printable ASCII characters`);
  }
  if (typeof s.token !== "string" || !/^[\x21-\x7e]{8,512}$/.test(s.token)) {
    throw validationFailed(`${where}.token must be a string of 8 to 512 printable ASCII characters without spaces`);
  }
  if (!Array.isArray(s.permissions) || !s.permissions.every((p) => PERMISSIONS.includes(p as Permission))) {
    throw validationFailed(`${where}.permissions must be an array of "read", "write", "admin"`);
  }
  if (typeof s.scope !== "string" || !SCOPE.test(s.scope)) {
    throw validationFailed(`${where}.scope must be "*", "cluster:*" or "cluster:<cluster id>"`);
  }
  if (typeof s.plan !== "string" || !PLANS.includes(s.plan as Plan)) {
    throw validationFailed(`${where}.plan must be one of "community", "pro", "enterprise"`);
  }
  let expiresAt: number | undefined;
  if (s.expires_at !== undefined && s.expires_at !== null) {
    expiresAt = typeof s.expires_at === "string" && ISO_DATE_TIME.test(s.expires_at) ? Date.parse(s.expires_at) : NaN;
    if (Number.isNaN(expiresAt))
      throw validationFailed(`${where}.expires_at must be an ISO 8601 date-time with a time zone, e.g. 2026-12-31T23:59:59Z`);
  }
  if (s.expires_in !== undefined) {
    if (expiresAt !== undefined) throw validationFailed(`${where}: give expires_at or expires_in, not both`);
    const ms = typeof s.expires_in === "string" ? parseDuration(s.expires_in) : undefined;
    if (ms === undefined) {
      throw validationFailed(`${where}.expires_in must be a whole number of days, hours, minutes or seconds, e.g. 30d, 12h, 90m, 45s`);
    }
    expiresAt = now + ms;
  }
  const scope = s.scope;
  let clusterId: string | undefined;
  if (scope.startsWith("cluster:") && scope !== "cluster:*") {
    const id = scope.slice("cluster:".length);
    clusterId = id.startsWith("cls_") ? id : `cls_${id}`;
  }
  return {
    token: s.token,
    permissions: new Set(s.permissions as Permission[]),
    scope,
    clusterId,
    plan: s.plan as Plan,
    expiresAt,
    ...(s.name !== undefined ? { name: s.name as string } : {}),
  };
}

/** Known tokens, looked up by their secret. */
export class TokenStore {
  private readonly byToken = new Map<string, Principal>();

  add(p: Principal): void {
    this.byToken.set(p.token, p);
  }

  /** Forget a token (revoked or rotated away): it answers 401 from now on. True when it existed. */
  remove(token: string): boolean {
    return this.byToken.delete(token);
  }

  has(token: string): boolean {
    return this.byToken.has(token);
  }

  /**
   * Resolves an `Authorization` header value. Throws 401 `unauthorized` when it is missing,
   * not a Bearer token, unknown or expired. The token itself never appears in a message.
   */
  authenticate(header: string | undefined, now: number): Principal {
    const token = bearer(header);
    if (token === undefined) {
      throw new ServiceError(401, "unauthorized", "The API token is missing or invalid: send Authorization: Bearer <API_TOKEN>");
    }
    const p = this.byToken.get(token);
    if (!p) throw new ServiceError(401, "unauthorized", "The API token is invalid or expired");
    if (p.expiresAt !== undefined && now >= p.expiresAt) {
      throw new ServiceError(
        401,
        "unauthorized",
        `The API token is invalid or expired (it expired at ${new Date(p.expiresAt).toISOString()})`,
      );
    }
    return p;
  }
}

/** Resolves a header to a valid (known, unexpired) token, or undefined; never throws. */
export function tryAuthenticate(store: TokenStore, header: string | undefined, now: number): Principal | undefined {
  try {
    return store.authenticate(header, now);
  } catch {
    return undefined;
  }
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** Throws 403 `forbidden` unless the token carries `permission`. */
export function requirePermission(p: Principal, permission: Permission, action: string): void {
  if (!p.permissions.has(permission)) {
    const has = [...p.permissions].join(", ") || "none";
    throw new ServiceError(
      403,
      "forbidden",
      `Insufficient permissions: ${action} requires the "${permission}" permission; this token has: ${has}`,
    );
  }
}

/** True when the token's scope covers the cluster. */
export function inScope(p: Principal, clusterId: string): boolean {
  return p.clusterId === undefined || p.clusterId === clusterId;
}

/** Throws 403 `forbidden` unless the token's scope covers the cluster. */
export function requireScope(p: Principal, clusterId: string, action: string): void {
  if (!inScope(p, clusterId)) {
    throw new ServiceError(
      403,
      "forbidden",
      `Insufficient permissions: ${action} on cluster ${clusterId} requires scope "*", "cluster:*" or "cluster:${clusterId}"; this token's scope is "${p.scope}"`,
    );
  }
}

/** Throws 403 `forbidden` unless the token may create clusters (scope `*` or `cluster:*`). */
export function requireCreateScope(p: Principal): void {
  if (p.clusterId !== undefined) {
    throw new ServiceError(
      403,
      "forbidden",
      `Insufficient permissions: creating a cluster requires scope "*" or "cluster:*"; this token's scope is "${p.scope}"`,
    );
  }
}

/** A random dev token. */
export function newDevToken(): string {
  return newSecret("cms_dev_");
}

/** A random control-API token. */
export function newAdminToken(): string {
  return newSecret("cms_admin_");
}

/** Re-export for callers that build specs. */
export type { TokenSpec };
