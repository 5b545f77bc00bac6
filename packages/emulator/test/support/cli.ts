/**
 * The standalone `cms-emulator` command, started as a child process from the compiled output: for
 * the tests of its flags and output, and of what survives `kill -9`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expect } from "vitest";
import { eventually } from "./eventually.mjs";

const emulatorPackage = resolve(__dirname, "../..");
/** The compiled `cms-emulator`, where the emulator's package.json says its bin is. */
export const CLI = join(emulatorPackage, JSON.parse(readFileSync(join(emulatorPackage, "package.json"), "utf8")).bin["cms-emulator"]);

/** Builds dist/ when the emulator's sources are newer than the compiled CLI (npm test builds first anyway). */
export function ensureCliBuilt(): void {
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(dir, e.name)) : e.name.endsWith(".ts") ? statSync(join(dir, e.name)).mtimeMs : 0,
      ),
    );
  // The CLI child process loads @pulumi-cms/contract's dist/ (Vitest's alias to its sources does
  // not reach it): that package's sources count too, and it is built first.
  const contractPackage = dirname(require.resolve("@pulumi-cms/contract/package.json"));
  const contractEntry = join(contractPackage, "dist", "index.js");
  if (!existsSync(contractEntry) || statSync(contractEntry).mtimeMs < newest(join(contractPackage, "src"))) {
    // Other packages of the repo may have type errors mid-work; tsc still emits, so only the output matters.
    spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { cwd: contractPackage, stdio: "ignore" });
  }
  const sources = Math.max(newest(join(emulatorPackage, "src")), statSync(contractEntry).mtimeMs);
  if (!existsSync(CLI) || statSync(CLI).mtimeMs < sources) {
    spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { cwd: emulatorPackage, stdio: "ignore" });
  }
  expect(existsSync(CLI)).toBe(true);
}

/** A started CLI: its stdout lines so far, its stderr, its exit. */
export interface StartedCli {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts the CLI with `args`. `wrapper` runs it under another command (e.g. `prlimit --fsize=N`),
 * which must exec it so that the child's pid is the emulator's.
 */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; wrapper?: string[] } = {}): StartedCli {
  const [command, ...rest] = [...(options.wrapper ?? []), process.execPath, CLI, ...args];
  const child = spawn(command, rest, { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => {
    out += d.toString();
    lines.splice(0, lines.length, ...out.split("\n").filter(Boolean));
  });
  child.stderr?.on("data", (d) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, lines, stderr: () => err, exited };
}

/** Waits until the CLI has printed `n` lines (bounded). */
export async function waitForLines(s: StartedCli, n: number): Promise<void> {
  await eventually(() => s.lines.length >= n, {
    timeoutMs: 15_000,
    intervalMs: 25,
    what: `${n} lines from the CLI`,
    describe: () => `it printed ${JSON.stringify(s.lines)}; stderr: ${s.stderr()}`,
  });
}

/** Waits for the listening line and returns the URL it names. */
export async function listeningUrl(s: StartedCli): Promise<string> {
  await waitForLines(s, 1);
  const m = /^cms-emulator listening on (http:\/\/\S+)$/.exec(s.lines[0]);
  if (!m) throw new Error(`not a listening line: ${s.lines[0]}`);
  return m[1];
}

/** SIGKILL, and its exit. */
export async function kill9(s: StartedCli): Promise<void> {
  s.child.kill("SIGKILL");
  await s.exited;
}
