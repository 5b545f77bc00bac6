/**
 * Injected failures on `/v1` routes, for testing a client's retries and timeouts.
 *
 * Matching (docs/contract.md, Control API): a fault matches when its `method` (if any) equals the
 * request method, and its `path` (if any) either equals the matched route pattern (when it
 * contains `:`, e.g. `/v1/clusters/:cluster_id`) or is a prefix of the request path
 * (otherwise, e.g. `/v1/clusters` or `/v1/clusters/cls_0123…`), or equals the request path when
 * `exact` is set (`/v1/clusters` exact: the list only). Every matching latency
 * fault adds its delay; then the oldest matching non-latency fault, if any, answers.
 */
import { validationFailed } from "./errors";
import type { FaultSpec } from "../types";

/** A registered fault. `remaining` is Infinity for unlimited latency faults. */
export interface Fault extends FaultSpec {
  id: string;
  remaining: number;
}

/** What faults decided for one request. */
export interface FaultOutcome {
  latencyMs: number;
  /** The non-latency fault that answers the request, if any. */
  fault?: Fault;
}

export class FaultRegistry {
  private faults: Fault[] = [];
  private seq = 0;

  /** Validates and registers a fault; throws 400 `validation_failed` naming the field. */
  add(spec: unknown): Fault {
    const f = checkFault(spec);
    const unlimited = f.kind === "latency" && f.count === undefined;
    const fault: Fault = {
      ...f,
      method: f.method?.toUpperCase(),
      id: `flt_${++this.seq}`,
      remaining: unlimited ? Infinity : (f.count ?? 1),
    };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Array<Omit<Fault, "remaining"> & { remaining: number | null }> {
    return this.faults.map((f) => ({ ...f, remaining: Number.isFinite(f.remaining) ? f.remaining : null }));
  }

  /** True when no fault is registered: lets the hot path skip matching entirely. */
  get empty(): boolean {
    return this.faults.length === 0;
  }

  /** Decides the faults of one request and uses them up. */
  take(method: string, path: string, route: string | undefined): FaultOutcome {
    const out: FaultOutcome = { latencyMs: 0 };
    for (const f of this.faults) {
      if (f.remaining <= 0 || !matches(f, method, path, route)) continue;
      if (f.kind === "latency") {
        out.latencyMs += f.latencyMs ?? 0;
        f.remaining -= 1;
      } else if (!out.fault) {
        out.fault = f;
        f.remaining -= 1;
      }
    }
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return out;
  }
}

function matches(f: Fault, method: string, path: string, route: string | undefined): boolean {
  if (f.method && f.method !== method) return false;
  if (!f.path) return true;
  if (f.path.includes(":")) return f.path === route;
  return f.exact ? path === f.path : path.startsWith(f.path);
}

const KINDS = ["status", "rate_limit", "drop", "latency"];

/** Checks a fault spec; throws 400 `validation_failed` naming the field and the rule. */
export function checkFault(spec: unknown): FaultSpec {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw validationFailed("fault must be a JSON object with at least kind");
  }
  const s = spec as Record<string, unknown>;
  const allowed = ["method", "path", "exact", "kind", "status", "count", "latencyMs", "retryAfterSeconds"];
  for (const key of Object.keys(s)) {
    if (!allowed.includes(key)) throw validationFailed(`${key.slice(0, 40)} is not a known fault field; allowed: ${allowed.join(", ")}`);
  }
  if (typeof s.kind !== "string" || !KINDS.includes(s.kind)) {
    throw validationFailed(`kind must be one of ${KINDS.join(", ")}`);
  }
  if (s.method !== undefined && (typeof s.method !== "string" || !/^[A-Za-z]{1,10}$/.test(s.method))) {
    throw validationFailed("method must be an HTTP method such as GET or PATCH");
  }
  if (s.path !== undefined && (typeof s.path !== "string" || !s.path.startsWith("/v1"))) {
    throw validationFailed('path must be a route pattern or a path prefix starting with "/v1"');
  }
  if (s.exact !== undefined && typeof s.exact !== "boolean") throw validationFailed("exact must be true or false");
  if (s.status !== undefined && ![500, 502, 503].includes(s.status as number)) {
    throw validationFailed("status must be 500, 502 or 503");
  }
  if (s.count !== undefined && !(Number.isInteger(s.count) && (s.count as number) >= 1)) {
    throw validationFailed("count must be an integer of at least 1");
  }
  if (s.kind === "latency" && !(Number.isInteger(s.latencyMs) && (s.latencyMs as number) >= 0 && (s.latencyMs as number) <= 600_000)) {
    throw validationFailed("latencyMs must be an integer between 0 and 600000 for a latency fault");
  }
  if (
    s.retryAfterSeconds !== undefined &&
    !(Number.isInteger(s.retryAfterSeconds) && (s.retryAfterSeconds as number) >= 0 && (s.retryAfterSeconds as number) <= 3600)
  ) {
    throw validationFailed("retryAfterSeconds must be an integer between 0 and 3600");
  }
  return s as unknown as FaultSpec;
}
