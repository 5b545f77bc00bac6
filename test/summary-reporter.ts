/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
 * coloured summary, so CI logs and other tools can read the outcome without parsing ANSI.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") totals.passed += 1;
        else if (state === "failed") totals.failed += 1;
        else totals.skipped += 1;
      }
      // A file that failed outside any test (it could not load, a hook threw) counts as a failure.
      if (module.state() === "failed" && ![...module.children.allTests()].some((t) => t.result().state === "failed")) totals.failed += 1;
    }
    // Errors outside any test (an unhandled rejection) count as failures.
    totals.failed += unhandledErrors.length;
    const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
    process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
  }
}
