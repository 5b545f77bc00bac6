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
