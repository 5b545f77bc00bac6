/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
 * coloured summary, so CI logs and other tools can read the outcome without parsing ANSI. Before
 * it, one line per suite skipped for a reason it states in its name (`... (skipped: why)`), since
 * vitest's summary only counts skipped tests.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    const reasons = new Set<string>();
    for (const module of testModules) {
      for (const suite of module.children.allSuites()) {
        const why = /\(skipped: (.+)\)$/.exec(suite.name)?.[1];
        if (why) reasons.add(`skipped: ${module.relativeModuleId}: ${why}`);
      }
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
    for (const line of reasons) process.stdout.write(`\n${line}`);
    process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
  }
}
