/**
 * An example project in a temporary directory, ready to type-check and run without
 * `npm install`: the example's files are copied, and its `node_modules` holds symlinks to this
 * repository (`pulumi-cms` → the repo root, i.e. its built `dist/`) and to the repository's own
 * `@pulumi`, `typescript` and `@types`. That is what `npm install` with `"pulumi-cms":
 * "file:../.."` produces, minus the download, so the test stays offline and fast.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Root of this repository. */
export const REPO = path.resolve(__dirname, "../../..");
/** The examples, by directory name under `examples/`. */
export const EXAMPLES = ["basic", "fleet", "kubernetes-app", "lookup"] as const;
export type ExampleName = (typeof EXAMPLES)[number];

/** Packages the examples resolve, linked from the repository's node_modules. */
const LINKED = ["@pulumi", "@types", "typescript"];

/** Throw a clear error unless the package is built (the examples load `dist/`). */
export function assertBuilt(): void {
  const entry = path.join(REPO, "dist", "index.js");
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does)`);
}

/**
 * Copy `examples/<name>` (without node_modules/, bin/, .pulumi/) into a new temporary directory
 * and link its node_modules. Returns the project directory; remove it with {@link removeDir}.
 */
export function copyExample(name: ExampleName): string {
  assertBuilt();
  const source = path.join(REPO, "examples", name);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `cms-example-${name}-`));
  const dir = path.join(root, "project");
  fs.cpSync(source, dir, {
    recursive: true,
    filter: (src) => !["node_modules", "bin", ".pulumi"].includes(path.basename(src)),
  });
  const nm = path.join(dir, "node_modules");
  fs.mkdirSync(nm);
  fs.symlinkSync(REPO, path.join(nm, "pulumi-cms"), "dir");
  for (const pkg of LINKED) fs.symlinkSync(path.join(REPO, "node_modules", pkg), path.join(nm, pkg), "dir");
  return dir;
}

/** Remove a directory made by {@link copyExample} (its temporary parent included). */
export function removeDir(dir: string): void {
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
}

/** Result of a child process. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command without a shell; never rejects (the caller asserts on `code`). */
export function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && code === 1 && !stderr ? error.message : "") });
      },
    );
  });
}

/**
 * Type-check the project in `dir` with the repository's TypeScript and the example's own
 * tsconfig.json (`--noEmit`), or compile it to `outDir` when given.
 */
export function compileExample(dir: string, outDir?: string): Promise<RunResult> {
  const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
  const args = [tsc, "-p", path.join(dir, "tsconfig.json"), ...(outDir ? ["--outDir", outDir] : ["--noEmit"])];
  return run(process.execPath, args, { cwd: dir });
}
