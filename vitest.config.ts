import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Lifecycle suites drive the real Pulumi CLI; running them one file at a time
    // keeps the 2-core CI machine from thrashing.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
