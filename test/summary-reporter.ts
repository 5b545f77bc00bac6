/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
 * coloured summary, so CI logs and other tools can read the outcome without parsing ANSI.
 */
import type { Reporter } from "vitest/reporters";

type Task = { type: string; mode?: string; result?: { state?: string }; tasks?: Task[] };

function count(tasks: Task[], totals: { passed: number; failed: number; skipped: number }): void {
  for (const t of tasks) {
    if (t.tasks) count(t.tasks, totals);
    if (t.type !== "test") continue;
    const state = t.result?.state;
    if (state === "pass") totals.passed += 1;
    else if (state === "fail") totals.failed += 1;
    else totals.skipped += 1;
  }
}

export default class SummaryReporter implements Reporter {
  onFinished(files: Task[] = [], errors: unknown[] = []): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    count(files, totals);
    // Errors outside any test (a crashed file, an unhandled rejection) count as failures.
    totals.failed += errors.length;
    const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
    process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
  }
}
