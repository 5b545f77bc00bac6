/**
 * Operation timeouts: the `customTimeouts` resource option, as each host finds it (the native
 * host in the engine's request, the dynamic host in a hidden input of the `Cluster`), checked and
 * turned into milliseconds with the documented defaults.
 */
import { parseDuration } from "../../shared/domain/durations";
import { InvalidArgumentError } from "../../shared/errors/invalid-argument-error";

/** Timeout strings as the user wrote them in `customTimeouts` (Go durations). */
export interface TimeoutStrings {
  /** Limit of a create, e.g. "30m". */
  create?: string;
  /** Limit of an update. */
  update?: string;
  /** Limit of a delete. */
  delete?: string;
}

/** Resolved timeouts in milliseconds. */
export interface Timeouts {
  /** Create limit, ms. */
  createMs: number;
  /** Update limit, ms. */
  updateMs: number;
  /** Delete limit, ms. */
  deleteMs: number;
}

/** Defaults when `customTimeouts` leaves an operation out: create 30m, update 30m, delete 20m. */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  createMs: 30 * 60_000,
  updateMs: 30 * 60_000,
  deleteMs: 20 * 60_000,
});

/** The operations a timeout can be set for, in the order messages list them. */
export const TIMEOUT_OPERATIONS = ["create", "update", "delete"] as const;

/** One problem with one timeout, shaped like a Pulumi check failure. */
export interface TimeoutProblem {
  /** `customTimeouts.<operation>`. */
  property: string;
  /** What is wrong, naming the rule. */
  reason: string;
}

/**
 * Check every timeout string without throwing: each bad value yields one problem naming
 * `customTimeouts.<operation>` and the rule. An absent or empty value means "use the default".
 */
export function validateTimeouts(value: unknown): TimeoutProblem[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== "object" || Array.isArray(value)) {
    return [{ property: "customTimeouts", reason: "customTimeouts must be an object with create, update and/or delete" }];
  }
  const problems: TimeoutProblem[] = [];
  const bag = value as Record<string, unknown>;
  for (const op of TIMEOUT_OPERATIONS) {
    const text = bag[op];
    if (text === undefined || text === null || text === "") continue;
    const property = `customTimeouts.${op}`;
    if (typeof text !== "string") {
      problems.push({ property, reason: `${property} must be a duration string such as "30m"` });
      continue;
    }
    try {
      if (parseDuration(text) <= 0) {
        problems.push({ property, reason: `${property} must be a positive duration, got "${text}"` });
      }
    } catch (e) {
      problems.push({ property, reason: `${property}: ${(e as Error).message}` });
    }
  }
  return problems;
}

/**
 * Resolve timeout strings to milliseconds, falling back to {@link DEFAULT_TIMEOUTS} for each
 * operation not given.
 *
 * @throws Error naming `customTimeouts.<operation>` when a value is not a positive duration
 *   (check reports the same problem earlier, so this only fires when check was bypassed).
 */
export function resolveTimeouts(value: TimeoutStrings | undefined | null): Timeouts {
  const problems = validateTimeouts(value);
  if (problems.length > 0) throw new InvalidArgumentError(problems.map((p) => p.reason).join("; "));
  const pick = (text: string | undefined, fallback: number): number =>
    text === undefined || text === null || text === "" ? fallback : parseDuration(text);
  return {
    createMs: pick(value?.create, DEFAULT_TIMEOUTS.createMs),
    updateMs: pick(value?.update, DEFAULT_TIMEOUTS.updateMs),
    deleteMs: pick(value?.delete, DEFAULT_TIMEOUTS.deleteMs),
  };
}

/**
 * Keep only the timeout strings that are set, so the hidden input is absent (not `{}` with
 * undefined members, which the protobuf Struct encoder rejects) when nothing was customised.
 */
export function timeoutStringsFrom(opts: TimeoutStrings | undefined): TimeoutStrings | undefined {
  if (!opts) return undefined;
  const out: TimeoutStrings = {};
  for (const op of TIMEOUT_OPERATIONS) {
    const v = opts[op];
    if (v !== undefined && v !== null && v !== "") out[op] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
