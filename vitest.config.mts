import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * The test files that need what `.ci/run` builds from Go modules. The real-CLI suites need the
 * Pulumi CLI with its language hosts; the Kubernetes files need the Kubernetes resource plugin or
 * the Kubernetes control plane too, the longest builds. `.ci/run` runs the files in three parts as
 * their builds become ready (`CMS_TEST_PART`): every other file while everything builds
 * (`before-builds`), the real-CLI suites once the CLI is ready (`cli`), the Kubernetes files last
 * (`kubernetes`). Without the variable, as in `npm test`, all of them run.
 */
const NEEDS_CLI = ["test/e2e/{lifecycle,matrix,docs,upgrade,examples,native}/**/*.test.ts", "test/e2e/release/registry-live.test.ts"];
const NEEDS_KUBERNETES = [
  "test/e2e/lifecycle/kubernetes-stack.test.ts",
  "test/e2e/examples/kubernetes-app-live.test.ts",
  "test/e2e/examples/kubernetes-app-no-kubernetes-live.test.ts",
  "test/e2e/docs/gitops-kubernetes.test.ts",
  "test/e2e/native/yaml-kubernetes-live.test.ts",
  // Its YAML auto-install run's kubectl check needs the control plane.
  "test/e2e/native/release-install-live.test.ts",
  "packages/emulator/test/kubernetes/**/*.test.ts",
];
const ALL = ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"];

const PARTS = {
  "before-builds": { include: ALL, exclude: [...NEEDS_CLI, ...NEEDS_KUBERNETES] },
  cli: { include: NEEDS_CLI, exclude: NEEDS_KUBERNETES },
  kubernetes: { include: NEEDS_KUBERNETES, exclude: [] },
} satisfies Record<string, { include: string[]; exclude: string[] }>;

const part = process.env.CMS_TEST_PART;
if (part !== undefined && !Object.hasOwn(PARTS, part)) {
  throw new Error(`CMS_TEST_PART must be one of ${Object.keys(PARTS).join(", ")}, got ${JSON.stringify(part)}`);
}
const files = part === undefined ? { include: ALL, exclude: [] } : PARTS[part as keyof typeof PARTS];

export default defineConfig({
  resolve: {
    // Tests run the TypeScript sources of the provider and the emulator; the package both import
    // by name is taken from its sources too, so that an edit to it needs no build before a test
    // run and a stale packages/contract/dist cannot stand in for it. (What runs outside Vitest,
    // the CLI child processes and installed tarballs, loads the built dist/.)
    alias: [{ find: /^@pulumi-cms\/contract$/, replacement: fileURLToPath(new URL("packages/contract/src/index.ts", import.meta.url)) }],
  },
  test: {
    include: files.include,
    exclude: [...configDefaults.exclude, ...files.exclude],
    // One directory for the run, for what every file would otherwise make again (test/support/run-dir.ts).
    globalSetup: ["./test/support/run-dir.ts"],
    // The default report, plus one plain `tests: N passed, N failed` closing line.
    reporters: ["default", "./test/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A real-CLI file keeps about three quarters of a core busy (the rest is waiting on the emulator
    // and the engine): three files at a time keep more of the 2-core CI machine busy than two
    // (docs/benchmarks.md, "`npm test` and a cold CI run"). One while
    // the Go builds take both cores.
    fileParallelism: true,
    maxWorkers: part === "before-builds" ? 1 : 3,
  },
});
