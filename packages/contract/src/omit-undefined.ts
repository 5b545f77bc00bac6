/** Shared by client, provider and emulator: depends on nothing. */

/**
 * `o` without its undefined properties, so that spreading it over defaults keeps the defaults
 * (`{ ...defaults, ...omitUndefined(options) }`).
 */
export function omitUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * `bag` without undefined values, recursively through plain objects: a Pulumi property bag as
 * the protobuf Struct encoder of the provider host accepts it (it rejects `undefined`:
 * "Unexpected struct type"). Arrays are kept as they are.
 */
export function omitUndefinedDeep<T extends Record<string, unknown>>(bag: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(bag)) {
    if (v === undefined) continue;
    out[k] = v !== null && typeof v === "object" && !Array.isArray(v) ? omitUndefinedDeep(v as Record<string, unknown>) : v;
  }
  return out as T;
}
