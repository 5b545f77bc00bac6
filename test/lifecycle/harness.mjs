// Harness for driving the real Pulumi CLI against the real cms emulator.
//
// Plain ESM JavaScript (with JSDoc types, see harness.d.mts) so that vitest tests, examples and
// `node bench/*.mjs` scripts can all import it without a TypeScript step:
//
//   import { startLifecycleEmulator, createProject } from "../test/lifecycle/harness.mjs";
//   const emu = await startLifecycleEmulator();                 // in this process, tiny durations
//   const project = await createProject({ config: emu.stackConfig() });
//   await project.up();                                         // pulumi up --yes --skip-preview
//   const state = await project.exportStack();                  // pulumi stack export (no secrets)
//   await project.destroy();
//   await project.dispose(); await emu.close();
//
// Everything lives in one temporary workspace per project (scripts/lib/pulumi-workspace.mjs, shared
// with the benchmarks and the demo):
//   <tmp>/project   Pulumi.yaml, package.json, index.js, node_modules/{pulumi-cms,@pulumi} symlinks
//   <tmp>/backend   the local file backend (PULUMI_BACKEND_URL=file://...)
//   <tmp>/home      PULUMI_HOME (so ~/.pulumi is never touched)
// The program is plain JavaScript requiring the built package (dist/), so no TypeScript compile
// happens per run. The CLI runs as an async child process: the emulator answers from this very
// process, so nothing here may block the event loop while pulumi runs.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeWorkspace, workspaceEnv, writeProject } from "../../scripts/lib/pulumi-workspace.mjs";
import { eventually } from "../support/eventually.mjs";

export { eventually };

/** Absolute path of the repository (the package under test). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const require = createRequire(import.meta.url);

/**
 * The Pulumi version everything here is pinned to, read from one place: the `@pulumi/pulumi` of
 * package.json's devDependencies (scripts/ensure-pulumi builds the CLI of the same version;
 * test/lifecycle/pinned-version.test.ts keeps the two equal).
 */
export const PINNED_PULUMI_VERSION = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).devDependencies[
  "@pulumi/pulumi"
];

/** The dynamic resource's type token, as it appears in URNs and state. */
export const CLUSTER_TYPE = "pulumi-nodejs:dynamic/cms:Cluster";

/** Default time limit of one CLI command (generous: the CI machine has 2 shared cores). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5 * 60_000;

/** True when the lifecycle tests were switched off on purpose (CMS_SKIP_LIFECYCLE=1). */
export function lifecycleSkipped() {
  return process.env.CMS_SKIP_LIFECYCLE === "1";
}

export class PulumiNotFoundError extends Error {
  constructor(detail) {
    super(
      `The lifecycle tests drive the real Pulumi CLI, and no usable one was found: ${detail}\n` +
        "Put it on PATH (with pulumi-language-nodejs and pulumi-resource-pulumi-nodejs beside it), e.g.\n" +
        '    export PATH="$(scripts/ensure-pulumi | tail -n1):$PATH"\n' +
        `(scripts/ensure-pulumi builds Pulumi v${PINNED_PULUMI_VERSION} from Go modules when needed: Go >= 1.25, 10-30 min cold on 2 cores).\n` +
        "To skip these tests deliberately, set CMS_SKIP_LIFECYCLE=1.",
    );
    this.name = "PulumiNotFoundError";
  }
}

let pulumiPromise;

/**
 * Locate the Pulumi CLI the way everything in the repository does: `scripts/ensure-pulumi
 * --no-build` (a `pulumi` on PATH with its plugins beside it, else the cache that
 * scripts/ensure-pulumi filled; `npm run demo` and `.ci/run` fill it). Resolves to
 * `{ binDir, pulumi, version }`; rejects with a {@link PulumiNotFoundError} that says what to do.
 * Never builds anything.
 */
export function findPulumi() {
  pulumiPromise ??= (async () => {
    const located = await execFile("bash", [path.join(REPO_ROOT, "scripts", "ensure-pulumi"), "--no-build"], { timeoutMs: 120_000 });
    const binDir = located.stdout.trim().split("\n").pop() ?? "";
    if (located.code !== 0 || !binDir) throw new PulumiNotFoundError(located.stderr.trim().replace(/^ensure-pulumi: /gm, ""));
    const pulumi = path.join(binDir, "pulumi");
    const res = await execFile(pulumi, ["version"], { env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "1" }, timeoutMs: 60_000 });
    if (res.code !== 0) throw new PulumiNotFoundError(`\`${pulumi} version\` failed: ${res.output.trim().slice(0, 200)}`);
    return { binDir, pulumi, version: res.stdout.trim().split("\n").pop() ?? "" };
  })();
  return pulumiPromise;
}

/**
 * Run a command asynchronously; never rejects for a non-zero exit (look at `code`). Kills the
 * whole process group on timeout. `onOutput` sees output as it arrives (e.g. to echo it).
 */
export function execFile(file, args, { cwd, env, timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS, onOutput, onSpawn } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    let output = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      stdout += d;
      output += d;
      onOutput?.(d);
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      output += d;
      onOutput?.(d);
    });
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), 5_000).unref();
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        command: [file, ...args].join(" "),
        code: code ?? (signal ? 128 : 1),
        signal,
        timedOut,
        stdout,
        stderr,
        output,
        durationMs: Date.now() - started,
      });
    });
  });
}

/** The emulator module of the built package (dist/). */
export function loadEmulatorModule() {
  const file = path.join(REPO_ROOT, "packages/emulator/dist/packages/emulator/src/index.js");
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: run \`npm run build\` first (npm test does).`);
  }
  return require(file);
}

/** Durations that keep a lifecycle run short but still show every transition. */
export const LIFECYCLE_TIMINGS = Object.freeze({ provisionSeconds: 1, scaleSeconds: 0.5, deleteSeconds: 0.5, upgradeSeconds: 0.5 });

/**
 * Start the emulator in this process on a free port with {@link LIFECYCLE_TIMINGS} (overridable).
 * Returns the RunningEmulator plus helpers:
 * - `stackConfig()`: `{ "cms:endpoint": url }` and `secretConfig()`: `{ "cms:token": token }`
 * - `api(method, path, body?)`: call `/v1` with the token; resolves `{ status, body, text }`
 * - `clusters()`: every cluster (control API, ignores scopes)
 * - `waitForCluster(id, predicate, timeoutMs?)`: poll the control API until predicate(cluster|undefined)
 */
export async function startLifecycleEmulator(options = {}) {
  const { startEmulator } = loadEmulatorModule();
  const emu = await startEmulator({
    port: 0,
    token: `cms_lifecycle_${randomBytes(12).toString("hex")}`,
    adminToken: `cms_admin_${randomBytes(12).toString("hex")}`,
    ...LIFECYCLE_TIMINGS,
    ...options,
  });
  const api = async (method, urlPath, body) => {
    const res = await fetch(`${emu.url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${emu.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, body: json, text };
  };
  const clusters = async () => emu.control.clusters();
  const waitForCluster = async (id, predicate, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = await clusters();
      const c = all.find((x) => x.id === id);
      if (predicate(c)) return c;
      if (Date.now() > deadline) throw new Error(`cluster ${id}: condition not met within ${timeoutMs} ms (last: ${JSON.stringify(c)})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return Object.assign(emu, {
    stackConfig: () => ({ "cms:endpoint": emu.url }),
    secretConfig: () => ({ "cms:token": emu.token }),
    api,
    clusters,
    waitForCluster,
  });
}

/**
 * The default test program (plain JavaScript), driven by stack config of the project namespace:
 *   mode           create (default) | import | get | none
 *   name           explicit cluster name (default: auto-named from the resource name "cluster")
 *   controlPlanes, workers, nodeSize    (defaults 1, 2, small)
 *   id             the cluster id for mode import / get
 *   createTimeout  customTimeouts.create (e.g. "3s")
 * Stack outputs: id, name, status, controlPlanes, workers, nodeSize, nodeCount, endpoint, kubeconfig.
 */
export const DEFAULT_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");

const config = new pulumi.Config();
const mode = config.get("mode") || "create";

function exportCluster(c) {
  exports.id = c.id;
  exports.name = c.name;
  exports.status = c.status;
  exports.controlPlanes = c.controlPlanes;
  exports.workers = c.workers;
  exports.nodeSize = c.nodeSize;
  exports.nodeCount = c.nodeCount;
  exports.endpoint = c.endpoint;
  exports.kubeconfig = c.kubeconfig;
}

if (mode === "get") {
  exportCluster(cms.Cluster.get("adopted", config.require("id")));
} else if (mode === "create" || mode === "import") {
  const opts = {};
  const createTimeout = config.get("createTimeout");
  if (createTimeout) opts.customTimeouts = { create: createTimeout };
  if (mode === "import") opts.import = config.require("id");
  exportCluster(
    new cms.Cluster(
      "cluster",
      {
        name: config.get("name"),
        controlPlanes: config.getNumber("controlPlanes") ?? 1,
        workers: config.getNumber("workers") ?? 2,
        nodeSize: config.get("nodeSize") ?? "small",
      },
      opts,
    ),
  );
} else if (mode !== "none") {
  throw new Error("unknown mode " + mode);
}
`;

/** Environment variables a test must not inherit (they would change what is being tested). */
/** Passphrase of the temporary stacks' secrets (local file backend, throw-away). */
export const TEST_PASSPHRASE = "pulumi-cms-lifecycle-passphrase";

/**
 * Make a temporary Pulumi project with a local file backend and an initialised stack.
 *
 * @param {object} [opts]
 * @param {string} [opts.name]     project name (default "cms-lifecycle")
 * @param {string} [opts.stack]    stack name (default "dev")
 * @param {string} [opts.program]  index.js source (default {@link DEFAULT_PROGRAM})
 * @param {Record<string,string>} [opts.files]  extra files, relative to the project dir
 * @param {Record<string,string|number>} [opts.config]        `pulumi config set` (plain)
 * @param {Record<string,string>} [opts.secretConfig]         `pulumi config set --secret`
 * @param {Record<string,string>} [opts.env]   extra environment of every CLI command
 * @param {string} [opts.nodeModules]  a node_modules directory to use (e.g. where the packed package
 *   and another @pulumi/pulumi were installed) instead of links to this repository
 * @param {boolean} [opts.echo]    copy CLI output to this process's stderr as it arrives
 */
export async function createProject(opts = {}) {
  const { binDir, version } = await findPulumi();
  const { root, project: dir, backend, home } = await makeWorkspace("pulumi-cms-lc-");
  const name = opts.name ?? "cms-lifecycle";
  await writeProject(dir, { name, program: opts.program ?? DEFAULT_PROGRAM, typescript: false });
  if (opts.nodeModules) {
    await fsp.symlink(opts.nodeModules, path.join(dir, "node_modules"), "dir");
  } else {
    await fsp.mkdir(path.join(dir, "node_modules"));
    await fsp.symlink(REPO_ROOT, path.join(dir, "node_modules", "pulumi-cms"), "dir");
    await fsp.symlink(path.join(REPO_ROOT, "node_modules", "@pulumi"), path.join(dir, "node_modules", "@pulumi"), "dir");
  }
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    await fsp.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fsp.writeFile(path.join(dir, rel), text);
  }
  const project = new PulumiProject({
    root,
    dir,
    backend,
    home,
    name,
    stack: opts.stack ?? "dev",
    binDir,
    version,
    env: opts.env ?? {},
    echo: opts.echo ?? process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  await project.run(["stack", "init", project.stack]);
  for (const [k, v] of Object.entries(opts.config ?? {})) await project.setConfig(k, v);
  for (const [k, v] of Object.entries(opts.secretConfig ?? {})) await project.setConfig(k, v, { secret: true });
  return project;
}

/** Error of a CLI command that was expected to succeed; carries the RunResult. */
export class PulumiCommandError extends Error {
  constructor(result) {
    const tail = result.output.split("\n").slice(-60).join("\n");
    super(
      `\`${result.command}\` exited with ${result.code}${result.timedOut ? " (timed out)" : ""} after ${result.durationMs} ms:\n${tail}`,
    );
    this.name = "PulumiCommandError";
    this.result = result;
  }
}

/** Parse `--json` engine-event output (one JSON object per line); non-JSON lines are skipped. */
export function parseEngineEvents(text) {
  const events = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      events.push(JSON.parse(t));
    } catch {
      // not an event
    }
  }
  return events;
}

/**
 * Resource steps from engine events, in order: `{ sequence, kind: "pre"|"outputs"|"failed", op, urn, type }`.
 * `op` is the engine's step op: create, update, same, delete, replace, create-replacement,
 * delete-replaced, read, import, refresh, ...
 */
export function resourceSteps(events) {
  const steps = [];
  for (const e of events) {
    const kind = e.resourcePreEvent ? "pre" : e.resOutputsEvent ? "outputs" : e.resOpFailedEvent ? "failed" : undefined;
    if (!kind) continue;
    const md = (e.resourcePreEvent ?? e.resOutputsEvent ?? e.resOpFailedEvent).metadata;
    steps.push({ sequence: e.sequence, kind, op: md.op, urn: md.urn, type: md.type, metadata: md });
  }
  return steps;
}

/** A temporary Pulumi project + stack; see {@link createProject}. */
export class PulumiProject {
  constructor(f) {
    Object.assign(this, f);
  }

  /** Environment of every CLI command: offline, isolated, no inherited PULUMI_* / CMS_*. */
  cliEnv(extra = {}) {
    const { binDir, backend, home } = this;
    return workspaceEnv({ binDir, backend, home, passphrase: TEST_PASSPHRASE, env: { ...this.env, ...extra } });
  }

  /**
   * Run `pulumi --non-interactive --color=never <args>` in the project directory.
   * Throws {@link PulumiCommandError} on a non-zero exit unless `allowFailure`.
   */
  async run(args, { allowFailure = false, env, timeoutMs, onSpawn, onOutput } = {}) {
    const result = await execFile(path.join(this.binDir, "pulumi"), ["--non-interactive", "--color=never", ...args], {
      cwd: this.dir,
      env: this.cliEnv(env),
      timeoutMs,
      onSpawn,
      onOutput: (d) => {
        if (this.echo) process.stderr.write(d);
        onOutput?.(d);
      },
    });
    if (result.code !== 0 && !allowFailure) throw new PulumiCommandError(result);
    return result;
  }

  /** `pulumi config set [--secret] key value` (key in the project namespace unless it has a colon). */
  async setConfig(key, value, { secret = false } = {}) {
    await this.run(["config", "set", ...(secret ? ["--secret"] : []), key, "--", String(value)]);
  }

  async removeConfig(key) {
    await this.run(["config", "rm", key]);
  }

  /** Write a new program (index.js). */
  async writeProgram(source) {
    await fsp.writeFile(path.join(this.dir, "index.js"), source);
  }

  /** `pulumi preview [args]` (e.g. `["--expect-no-changes"]`, `["--json"]`). */
  preview(args = [], opts) {
    return this.run(["preview", ...args], opts);
  }

  /** `pulumi up --yes --skip-preview [args]`. */
  up(args = [], opts) {
    return this.run(["up", "--yes", "--skip-preview", ...args], opts);
  }

  /** `pulumi up --json`: the engine events, parsed (`events`, `steps`). */
  async upJson(args = [], opts) {
    const result = await this.up(["--json", ...args], opts);
    const events = parseEngineEvents(result.stdout);
    return Object.assign(result, { events, steps: resourceSteps(events) });
  }

  /** `pulumi refresh --yes --skip-preview [args]`. */
  refresh(args = [], opts) {
    return this.run(["refresh", "--yes", "--skip-preview", ...args], opts);
  }

  /** `pulumi destroy --yes --skip-preview [args]`. */
  destroy(args = [], opts) {
    return this.run(["destroy", "--yes", "--skip-preview", ...args], opts);
  }

  /** `pulumi stack export` (secrets stay encrypted): `{ text, deployment, resources }`. */
  async exportStack() {
    const result = await this.run(["stack", "export"]);
    const state = JSON.parse(result.stdout);
    const resources = state.deployment?.resources ?? [];
    return { text: result.stdout, state, resources };
  }

  /** The Cluster resources of the stack's state (from `pulumi stack export`). */
  async clusterResources() {
    return (await this.exportStack()).resources.filter((r) => r.type === CLUSTER_TYPE);
  }

  /** `pulumi stack output --json` (secrets shown as "[secret]" unless showSecrets). */
  async outputs({ showSecrets = false } = {}) {
    const result = await this.run(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(result.stdout);
  }

  /** Remove the temporary directory (state, home, project). Does not destroy resources. */
  async dispose() {
    await fsp.rm(this.root, { recursive: true, force: true });
  }
}

/**
 * Every file under `dir` whose text contains one of `needles`: `[{ file, needle }]`. For the
 * secrets checks (backend, PULUMI_HOME, project directory). Symlinks are not followed.
 */
export async function filesContaining(dir, needles) {
  const hits = [];
  const walk = async (d) => {
    for (const ent of await fsp.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) await walk(p);
      else if (ent.isFile()) {
        const text = await fsp.readFile(p, "utf8");
        for (const n of needles) if (n && text.includes(n)) hits.push({ file: p, needle: `${n.slice(0, 12)}...` });
      }
    }
  };
  await walk(dir);
  return hits;
}

/**
 * Tear down after a suite, even one whose steps failed: destroy what each project's stack still
 * has (failures tolerated), remove the projects, then stop the emulator. Undefined entries (a
 * `beforeAll` that failed half-way) are skipped.
 */
export async function teardown(projects, emulator) {
  for (const p of projects) {
    if (!p) continue;
    await p.destroy([], { allowFailure: true });
    await p.dispose();
  }
  await emulator?.close();
}

/**
 * Every live descendant of `pid` (children, grandchildren...), read from /proc. The Pulumi CLI
 * starts its plugins in process groups of their own, so killing its group misses them: a test
 * that stands for "the runner killed the job" kills this whole tree instead.
 *
 * @param {number} pid
 * @returns {number[]}
 */
export function descendants(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(entry));
  }
  const out = [];
  const todo = [pid];
  while (todo.length > 0) {
    for (const c of children.get(todo.pop()) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

/** True while process `pid` exists (and is not a zombie). */
export function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * SIGKILL `pid` and every descendant at once, as a runner's hard kill of a job would. The tree is
 * read before the first signal, so no process is re-parented out of reach.
 *
 * @param {number} pid
 * @returns {number[]} the pids killed
 */
export function killTree(pid) {
  const all = [pid, ...descendants(pid)];
  for (const p of all) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return all;
}
