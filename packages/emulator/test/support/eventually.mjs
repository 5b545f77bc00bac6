/**
 * The one "poll until" of the tests: wait on observed state, never on a fixed sleep. Plain
 * JavaScript so that the root's lifecycle harness (also run by `node bench/*.mjs`) shares it with
 * the TypeScript suites, through the root's `test/support/eventually.mjs`.
 */

/**
 * Poll `fn` until it returns a truthy value (resolved), or fail after `timeoutMs` with `what` and,
 * when given, `describe(last)` of the last value seen.
 */
export async function eventually(fn, { timeoutMs = 30_000, intervalMs = 100, what = "condition", describe } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms${describe ? `; ${describe(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
