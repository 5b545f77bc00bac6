/**
 * Running the real Pulumi CLI for the benchmarks, on the CLI driver (scripts/lib/pulumi-driver.mjs:
 * the Automation API, a temporary file backend and PULUMI_HOME, so nothing of the user's is
 * touched and nothing goes over the network): a temporary project whose program declares `count`
 * clusters, and one function per command that returns its wall time, exit code, what its engine
 * events say and the peak RSS of the dynamic-provider host process it started.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { descendants, findPulumi, makeWorkspace, openProject, writeProject } from "../../scripts/lib/pulumi-driver.mjs";
import { nowMs } from "./observer.mjs";

/** @typedef {import("../../scripts/lib/pulumi-driver.mjs").PulumiProject} PulumiProject */

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

/**
 * The package's `pulumi-resource-cms` bin linked into `nodeModules/.bin` (of {@link installTarball}),
 * as npm links it (the tarball is unpacked by hand, so here); that directory.
 *
 * @param {string} nodeModules
 */
export function linkPluginBin(nodeModules) {
  const bin = JSON.parse(readFileSync(join(nodeModules, "pulumi-cms", "package.json"), "utf8")).bin["pulumi-resource-cms"];
  const dir = join(nodeModules, ".bin");
  mkdirSync(dir, { recursive: true });
  chmodSync(join(nodeModules, "pulumi-cms", bin), 0o755);
  symlinkSync(`../pulumi-cms/${bin}`, join(dir, "pulumi-resource-cms"));
  return dir;
}

/**
 * The bin directory of the pinned Pulumi CLI (scripts/ensure-pulumi, which builds it when it is
 * missing, its progress on stderr).
 */
export async function ensurePulumi() {
  return (await findPulumi({ build: true })).binDir;
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
 * A temporary project and stack on the CLI driver (scripts/lib/pulumi-driver.mjs). `env` is the
 * environment of every command (endpoint and token of the emulator go in here: the provider reads
 * CMS_ENDPOINT / CMS_TOKEN). `program` replaces the default one (clusters of the package in
 * `pkgDir`); `nodeModules` the project's node_modules (default: the repository's, where the
 * language host finds @pulumi/pulumi); `files` are written into the project last (a YAML
 * project's Pulumi.yaml, or one naming a plugin's directory, replaces the Node.js one).
 *
 * @param {{ pkgDir?: string, name?: string, env?: Record<string, string>, program?: string, nodeModules?: string, files?: Record<string, string> }} options
 */
export async function createProject({
  pkgDir = root,
  name = "cms-bench",
  env = {},
  program,
  nodeModules = join(root, "node_modules"),
  files = {},
}) {
  const workspace = await makeWorkspace("pulumi-cms-bench-");
  await writeProject(workspace.project, {
    name,
    program: program ?? PROGRAM(join(pkgDir, "dist/index.js")),
    description: "pulumi-cms benchmark stack",
  });
  symlinkSync(nodeModules, join(workspace.project, "node_modules"), "dir");
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(workspace.project, rel), text);
  /** @type {PulumiProject | undefined} */
  let project;
  return {
    dir: workspace.root,
    project: workspace.project,
    stack: "bench",
    async init() {
      project = await openProject({ workspace, name, stack: "bench", passphrase: "bench-passphrase", env });
    },
    /**
     * One command; see {@link measure}.
     *
     * @param {string[]} args
     * @param {Record<string, string>} [extraEnv]
     * @param {{ timeoutMs?: number, sampleMs?: number }} [options]
     */
    run(args, extraEnv = {}, options = {}) {
      if (!project) throw new Error("init() first");
      return measure(project, args, extraEnv, options);
    },
    cleanup() {
      rmSync(workspace.root, { recursive: true, force: true });
    },
  };
}

/** The operations the driver runs with engine events; any other command goes through its runner. */
const OPERATIONS = new Set(["up", "preview", "refresh", "destroy"]);

/**
 * One pulumi command (`--non-interactive` is implied). Resolves with wall time (ms), exit code,
 * output, what the engine events say for `up`, `preview`, `refresh` and `destroy` (`json`: the
 * failed resource operations, the error diagnostics, the summary's changes and the steps) and
 * `providerPeakRssBytes`: the largest VmHWM (the kernel's peak resident set) seen for a
 * dynamic-provider host descended from this process while the command ran, sampled every
 * `sampleMs`. Stopped after `timeoutMs`.
 *
 * @param {PulumiProject} project
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {{ timeoutMs?: number, sampleMs?: number }} options
 */
async function measure(project, args, env, { timeoutMs = 30 * 60_000, sampleMs = 200 }) {
  const [command, ...flags] = args.filter((a) => a !== "--non-interactive");
  /** @type {Map<number, number>} pid → peak VmHWM bytes */
  const providerPeak = new Map();
  const sample = () => {
    for (const pid of descendants(process.pid)) {
      // The launcher is a shell script running `node .../cmd/dynamic-provider <engine address>`.
      const argv = cmdline(pid).split("\0");
      if (!/(^|\/)node$/.test(argv[0]) || !/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "")) continue;
      const hwm = statusField(pid, "VmHWM");
      if (hwm !== undefined) providerPeak.set(pid, Math.max(providerPeak.get(pid) ?? 0, hwm));
    }
  };
  const sampler = setInterval(sample, sampleMs);
  const start = nowMs();
  const options = { allowFailure: true, env, timeoutMs };
  /** @type {import("../../scripts/lib/pulumi-driver.mjs").RunResult & Partial<import("../../scripts/lib/pulumi-driver.mjs").OperationResult>} */
  let r;
  try {
    // `refresh --yes` without --skip-preview (a preview pass, then the refresh) is no operation of the Automation API.
    const operation = OPERATIONS.has(command) && (command !== "refresh" || flags.includes("--skip-preview"));
    r = operation
      ? await project.operation(/** @type {import("../../scripts/lib/pulumi-driver.mjs").Operation} */ (command), flags, options)
      : await project.run([command, ...flags], options);
  } finally {
    clearInterval(sampler);
  }
  const wallMs = nowMs() - start;
  return {
    args,
    code: r.code,
    timedOut: r.timedOut,
    wallMs,
    start,
    end: start + wallMs,
    output: r.output,
    stdout: r.stdout,
    stderr: r.stderr,
    json: r.events && {
      failedOps: (r.steps ?? []).filter((s) => s.kind === "failed").map((s) => s.urn),
      errors: r.errors ?? [],
      summary: r.summary,
      steps: (r.steps ?? []).filter((s) => s.kind === "pre"),
    },
    providerPeakRssBytes: providerPeak.size ? Math.max(...providerPeak.values()) : undefined,
    providerProcesses: providerPeak.size,
  };
}

/** @param {number} pid */
function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/**
 * A `kB` field of /proc/<pid>/status, in bytes.
 *
 * @param {number} pid
 * @param {string} field
 */
function statusField(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
