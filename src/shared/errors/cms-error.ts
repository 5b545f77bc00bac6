/**
 * The one base class of every error the package throws: `catch (e) { if (e instanceof CmsError) … }`
 * tells the package's failures from any other, and `code` says which failure it is without
 * reading the message (messages are for people and may be reworded).
 */

// Pulumi can load the package twice in one process (the program and the dynamic provider's
// closure): `instanceof CmsError` recognises an error of either copy by this mark.
const MARK = Symbol.for("pulumi-cms.CmsError");

/**
 * Base class of every error `pulumi-cms` throws.
 *
 * `code` is stable and machine-readable: for an error answer of the service it is the service's
 * own code (`not_found`, `rate_limited`, …), for a request that got no answer the network code
 * (`ECONNRESET`, …), for the package's own failures one code per class (`deadline_exceeded`,
 * `invalid_response`, …).
 */
export abstract class CmsError extends Error {
  /** What went wrong, machine-readable and stable across releases. */
  abstract readonly code: string;

  /** True for an error of any copy of this package loaded in the process, for subclasses as usual. */
  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class asked, a subclass's test comes here too
    if (this !== CmsError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}
Object.defineProperty(CmsError.prototype, MARK, { value: true });

/** The `code` of a failure `e` to carry on when wrapping it: its own when it is one of ours, else `fallback`. */
export function codeOf(e: unknown, fallback: string): string {
  return e instanceof CmsError ? e.code : fallback;
}
