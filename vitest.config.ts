import { configDefaults, defineConfig } from "vitest/config";

/**
 * The test files that need what `.ci/run` builds from Go modules: the Pulumi CLI with its language
 * hosts (the real-CLI suites), the Kubernetes resource plugin and the Kubernetes control plane.
 * `.ci/run` runs every other file while those build (`CMS_TEST_PART=before-builds`), then these
 * (`after-builds`); without the variable, as in `npm test`, all of them run.
 */
const NEEDS_BUILDS = ["test/{lifecycle,matrix,docs,upgrade,examples,native}/**/*.test.ts", "packages/emulator/test/kubernetes-*.test.ts"];
const part = process.env.CMS_TEST_PART;
if (part !== undefined && part !== "before-builds" && part !== "after-builds") {
  throw new Error(`CMS_TEST_PART must be before-builds or after-builds, got ${JSON.stringify(part)}`);
}

export default defineConfig({
  test: {
    include: part === "after-builds" ? NEEDS_BUILDS : ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    exclude: part === "before-builds" ? [...configDefaults.exclude, ...NEEDS_BUILDS] : configDefaults.exclude,
    // The default report, plus one plain `tests: N passed, N failed` closing line.
    reporters: ["default", "./test/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time: the lifecycle suites drive the real Pulumi CLI, and more workers
    // than the 2-core CI machine has cores only makes them thrash. One while the Go builds
    // take both cores.
    fileParallelism: true,
    maxWorkers: part === "before-builds" ? 1 : 2,
  },
});
