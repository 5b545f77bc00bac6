/**
 * Running the real Pulumi CLI for the benchmarks: a temporary project whose program declares
 * `count` clusters, on a workspace of scripts/lib/pulumi-workspace.mjs (temporary file backend
 * and PULUMI_HOME: nothing of the user's is touched, nothing goes over the network), and one function per command that returns its wall time,
 * exit code, the `--json` summary when asked for and the peak RSS of the dynamic-provider
 * host process it started.
 */
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeWorkspace, workspaceEnv, writeProject } from "../../scripts/lib/pulumi-workspace.mjs";
import { nowMs } from "./observer.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * A private copy of the built package (`dist/` and package.json, with the repository's
 * node_modules linked), taken once at the start: teammates rebuild `dist/` while a benchmark
 * of several minutes runs, and every part must measure the same code. `from` is the package to
 * copy (default: this repository; BENCH_PACKAGE_DIR in bench/provider.mjs measures another build,
 * e.g. an older commit extracted with `git archive` and built).
 */
export function snapshotPackage(from = root) {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-cms-bench-pkg-"));
  cpSync(join(from, "dist"), join(dir, "dist"), { recursive: true });
  cpSync(join(from, "package.json"), join(dir, "package.json"));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The package as a user installs it: `npm pack` of the built package in `from` (default: this
 * repository; `dist/` as built, so build first), unpacked into `<tmp>/node_modules/pulumi-cms`,
 * beside links to every entry of the repository's node_modules (its dependencies and
 * `@pulumi/pulumi`, resolved as npm would place them). A project whose node_modules is that
 * directory loads `require("pulumi-cms")`, and its serialized providers load
 * `pulumi-cms/dist/provider/cluster-provider.js`, exactly as in a user's project.
 */
export function installTarball(from = root) {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-cms-bench-tgz-"));
  const json = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: from,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tarball = join(dir, JSON.parse(json)[0].filename);
  const nodeModules = join(dir, "node_modules");
  const target = join(nodeModules, "pulumi-cms");
  mkdirSync(target, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry === "pulumi-cms" || entry.startsWith(".")) continue;
    symlinkSync(join(root, "node_modules", entry), join(nodeModules, entry), "dir");
  }
  return { dir, tarball, nodeModules, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The bin directory of the pinned Pulumi CLI (last stdout line of scripts/ensure-pulumi). */
export function ensurePulumi() {
  const out = execFileSync(join(root, "scripts/ensure-pulumi"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const lines = out.trim().split("\n");
  return lines[lines.length - 1].trim();
}

/** The Pulumi program: `CMS_BENCH_COUNT` clusters of `CMS_BENCH_WORKERS` workers. */
const PROGRAM = (distIndex) => `"use strict";
const cms = require(${JSON.stringify(distIndex)});
const count = Number(process.env.CMS_BENCH_COUNT);
const workers = Number(process.env.CMS_BENCH_WORKERS);
const ids = [];
for (let i = 0; i < count; i++) {
  const c = new cms.Cluster("c" + i, { name: "bench-" + i, controlPlanes: 1, workers, nodeSize: "small" });
  ids.push(c.id);
}
exports.count = ids.length;
`;

/**
 * A temporary project and stack. `env` is the environment of every command (endpoint and token
 * of the emulator go in here: the provider reads CMS_ENDPOINT / CMS_TOKEN). `program` replaces
 * the default one (clusters of the package in `pkgDir`); `nodeModules` the project's
 * node_modules (default: the repository's, where the language host finds @pulumi/pulumi).
 */
export async function createProject({
  binDir,
  pkgDir = root,
  name = "cms-bench",
  env = {},
  program,
  nodeModules = join(root, "node_modules"),
}) {
  const { root: dir, project, backend, home } = await makeWorkspace("pulumi-cms-bench-");
  await writeProject(project, {
    name,
    program: program ?? PROGRAM(join(pkgDir, "dist/index.js")),
    description: "pulumi-cms benchmark stack",
  });
  symlinkSync(nodeModules, join(project, "node_modules"), "dir");
  const baseEnv = workspaceEnv({ binDir, backend, home, passphrase: "bench-passphrase", env });
  const stack = "bench";
  const run = (args, extraEnv = {}, options = {}) => runPulumi(binDir, project, args, { ...baseEnv, ...extraEnv }, options);
  return {
    dir,
    project,
    stack,
    run,
    async init() {
      const r = await run(["stack", "init", stack, "--non-interactive"]);
      if (r.code !== 0) throw new Error(`pulumi stack init failed:\n${r.output}`);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One pulumi command. Resolves with wall time (ms), exit code, output, the parsed `--json`
 * result (when `json` is set) and `providerPeakRssBytes`: the
 * largest VmHWM (the kernel's peak resident set) seen for a dynamic-provider host descended from
 * this command, sampled every `sampleMs`. Killed after `timeoutMs`.
 */
export function runPulumi(binDir, cwd, args, env, { json = false, timeoutMs = 30 * 60_000, sampleMs = 200 } = {}) {
  const fullArgs = json ? [...args, "--json"] : args;
  return new Promise((resolve) => {
    const start = nowMs();
    const child = spawn(join(binDir, "pulumi"), fullArgs, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const providerPeak = new Map(); // pid → peak VmHWM bytes
    const sample = () => {
      for (const pid of descendants(child.pid)) {
        // The launcher is a shell script running `node .../cmd/dynamic-provider <engine address>`.
        const argv = cmdline(pid).split("\0");
        if (!/(^|\/)node$/.test(argv[0]) || !/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "")) continue;
        const hwm = statusField(pid, "VmHWM");
        if (hwm !== undefined) providerPeak.set(pid, Math.max(providerPeak.get(pid) ?? 0, hwm));
      }
    };
    const sampler = setInterval(sample, sampleMs);
    let timedOut = false;
    const killer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGINT");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    }, timeoutMs);
    child.on("close", (code) => {
      clearInterval(sampler);
      clearTimeout(killer);
      const wallMs = nowMs() - start;
      const summary = json ? parseJson(stdout) : undefined;
      resolve({
        args,
        code: code ?? -1,
        timedOut,
        wallMs,
        start,
        end: start + wallMs,
        output: stdout + stderr,
        stdout,
        stderr,
        json: json ? summary : undefined,
        providerPeakRssBytes: providerPeak.size ? Math.max(...providerPeak.values()) : undefined,
        providerProcesses: providerPeak.size,
      });
    });
  });
}

/**
 * What `--json` printed: `preview --json` prints one JSON document; `up` and `destroy --json`
 * stream engine events, one JSON object a line. Returns `{ document }` or `{ events, failedOps,
 * errors }` (resource operations that failed, and error diagnostics).
 */
function parseJson(text) {
  try {
    return { document: JSON.parse(text) };
  } catch {
    // event stream
  }
  const events = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // not an event line
    }
  }
  const failedOps = events.filter((e) => e.resOpFailedEvent).map((e) => e.resOpFailedEvent.metadata?.urn);
  const errors = events
    .filter((e) => e.diagnosticEvent && e.diagnosticEvent.severity === "error")
    .map((e) => `${e.diagnosticEvent.urn ?? ""} ${e.diagnosticEvent.message}`.trim());
  const summary = events.find((e) => e.summaryEvent)?.summaryEvent;
  return { events: events.length, failedOps, errors, summary };
}

function children(pid) {
  try {
    const dir = `/proc/${pid}/task`;
    const out = [];
    for (const tid of readdirSync(dir)) {
      const text = readFileSync(`${dir}/${tid}/children`, "utf8").trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

function descendants(pid) {
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    for (const c of children(p)) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/** A `kB` field of /proc/<pid>/status, in bytes. */
function statusField(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
