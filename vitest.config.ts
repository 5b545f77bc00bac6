import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    // The default report, plus one plain `tests: N passed, N failed` closing line.
    reporters: ["default", "./test/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time: the lifecycle suites drive the real Pulumi CLI, and more workers
    // than the 2-core CI machine has cores only makes them thrash.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
