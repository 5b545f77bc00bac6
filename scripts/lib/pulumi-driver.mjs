// @ts-check
/**
 * The one driver of the Pulumi CLI in this repository, on the Automation API
 * (`@pulumi/pulumi/automation`: a `LocalWorkspace` and its `Stack`, typed engine events): the test
 * harness (test/e2e/lifecycle/harness.mjs), the benchmarks (bench/lib/pulumi.mjs) and the demo
 * (scripts/demo.mjs) all build on it. Checked JavaScript (`tsc -p tsconfig.scripts.json`, part of
 * `npm run lint`) so that `node` loads it as it is: the demo runs it before anything is built.
 *
 * A workspace is a temporary directory with
 *   project/   Pulumi.yaml, package.json, index.js (the demo uses the repository's own project)
 *   backend/   the local file backend (PULUMI_BACKEND_URL=file://...)
 *   home/      PULUMI_HOME, so ~/.pulumi is never touched
 * and every command runs offline, in an environment that inherits no PULUMI_* or CMS_* variable.
 *
 * Processes are spawned directly ({@link execFile}) only where a caller kills them: the Automation
 * API does not hand out the CLI's pid, and a killed job's plugins live in process groups of their
 * own, so such a caller kills the whole tree ({@link killTree}, the one /proc walk).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import automation from "@pulumi/pulumi/automation/index.js";
import { PulumiCommandError } from "./pulumi-command-error.mjs";
import { PulumiNotFoundError } from "./pulumi-not-found-error.mjs";
import { descendants } from "../../packages/emulator/test/support/process-tree.mjs";

/** @typedef {import("@pulumi/pulumi/automation/index.js").EngineEvent} EngineEvent */
/** @typedef {import("@pulumi/pulumi/automation/index.js").OpType} OpType */
/** @typedef {import("@pulumi/pulumi/automation/index.js").Stack} AutomationStack */
/** @typedef {import("@pulumi/pulumi/automation/index.js").LocalWorkspace} AutomationWorkspace */
/** @typedef {import("@pulumi/pulumi/automation/index.js").PulumiCommand} AutomationCommand */
/** @typedef {import("@pulumi/pulumi/automation/index.js").SummaryEvent} SummaryEvent */
/** @typedef {{ stdout: string, stderr: string, code: number }} CommandOutcome */
/** @typedef {{ exitCode?: number, signal?: string, stdout?: string, stderr?: string }} ProcessError */
/**
 * The runner every command of the Automation API goes through (`PulumiCommand.run`; internal in
 * its typings, and the SDK is pinned): `--non-interactive`, the CLI's directory first on PATH.
 *
 * @typedef {{ run(args: string[], cwd: string, env: Record<string, string>, onOutput: (d: string) => void, onError: (d: string) => void, signal: AbortSignal): Promise<CommandOutcome> }} CommandRunner
 */

/**
 * What a failed command printed and its exit code. The Automation API's `CommandError` carries
 * them (a field its typings keep private); when the CLI ran and exited non-zero, the real exit
 * code and output are those of the process error it wraps (its own `code` is then -2).
 *
 * @param {unknown} e
 * @returns {CommandOutcome | undefined}
 */
function failedCommand(e) {
  if (!(e instanceof CommandError)) return undefined;
  const { commandResult } = /** @type {{ commandResult: CommandOutcome & { err?: ProcessError } }} */ (/** @type {unknown} */ (e));
  const err = commandResult.err;
  if (typeof err?.exitCode !== "number" && !err?.signal) return commandResult;
  return { stdout: err.stdout ?? "", stderr: err.stderr ?? "", code: err.exitCode ?? 128 };
}

const { CommandError, LocalWorkspace, PulumiCommand, Stack } = automation;

/** Absolute path of the repository (the package under test). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The Pulumi version everything here is pinned to, read from one place: the `@pulumi/pulumi` of
 * package.json's devDependencies (scripts/ensure-pulumi builds the CLI of the same version;
 * test/e2e/lifecycle/pinned-version.test.ts keeps the two equal).
 *
 * @type {string}
 */
export const PINNED_PULUMI_VERSION = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).devDependencies[
  "@pulumi/pulumi"
];

/** The package's dynamic resource's type token, as it appears in URNs and state. */
export const CLUSTER_TYPE = "pulumi-nodejs:dynamic/cms:Cluster";

/** Default time limit of one CLI command (generous: the CI machine has 2 shared cores). */
const DEFAULT_COMMAND_TIMEOUT_MS = 5 * 60_000;

/**
 * @typedef {object} RunResult
 * @property {string} command   the command line, for messages
 * @property {number} code      exit code (128 when killed by a signal)
 * @property {NodeJS.Signals | null} signal
 * @property {boolean} timedOut
 * @property {string} stdout
 * @property {string} stderr
 * @property {string} output    stdout and stderr interleaved as they arrived
 * @property {number} durationMs
 */

/**
 * @typedef {object} ExecOptions
 * @property {string} [cwd]
 * @property {NodeJS.ProcessEnv} [env]
 * @property {number} [timeoutMs]
 * @property {(chunk: string) => void} [onOutput]  sees output as it arrives
 * @property {(child: import("node:child_process").ChildProcess) => void} [onSpawn]  the child at once (its pid, for kill tests)
 */

/**
 * Run a command as a direct child in a process group of its own; never rejects for a non-zero
 * exit (look at `code`). Kills the group on timeout. For the callers that kill what they started.
 *
 * @param {string} file
 * @param {string[]} args
 * @param {ExecOptions} [options]
 * @returns {Promise<RunResult>}
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
    /** @param {NodeJS.Signals} signal */
    const killGroup = (signal) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
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

/**
 * @typedef {object} FoundPulumi
 * @property {string} binDir   the directory of `pulumi` and its plugins
 * @property {AutomationCommand} command  the Automation API's handle on that `pulumi`
 * @property {string} version  as `pulumi version` prints it
 */

/** @type {Map<boolean, Promise<FoundPulumi>>} */
const found = new Map();

/**
 * Locate the Pulumi CLI the one way everything here does: `scripts/ensure-pulumi` (a `pulumi` on
 * PATH with its plugins beside it, else the cache; with `build`, else a build from Go modules,
 * its progress on this process's stderr). Without `build` it never builds and rejects with a
 * {@link PulumiNotFoundError} saying what to do. Once per process.
 *
 * @param {{ build?: boolean }} [options]
 * @returns {Promise<FoundPulumi>}
 */
export function findPulumi({ build = false } = {}) {
  let promise = found.get(build);
  if (!promise) {
    promise = (async () => {
      const script = path.join(REPO_ROOT, "scripts", "ensure-pulumi");
      const located = build ? await building(script) : await execFile("bash", [script, "--no-build"], { timeoutMs: 120_000 });
      const binDir = located.stdout.trim().split("\n").pop()?.trim() ?? "";
      if (located.code !== 0 || !binDir)
        throw new PulumiNotFoundError(located.stderr.trim().replace(/^ensure-pulumi: /gm, ""), PINNED_PULUMI_VERSION);
      if (path.basename(binDir) !== "bin") {
        // The Automation API runs `<root>/bin/pulumi`; every installation and the cache have that shape.
        throw new PulumiNotFoundError(`${binDir} is not a directory named bin`, PINNED_PULUMI_VERSION);
      }
      const command = await PulumiCommand.get({ root: path.dirname(binDir) }).catch((e) => {
        throw new PulumiNotFoundError(
          `\`${path.join(binDir, "pulumi")} version\` failed: ${String(e.message ?? e).slice(0, 200)}`,
          PINNED_PULUMI_VERSION,
        );
      });
      return { binDir, command, version: `v${command.version?.toString() ?? "?"}` };
    })();
    found.set(build, promise);
  }
  return promise;
}

/**
 * `scripts/ensure-pulumi`, allowed to build: its progress goes to this process's stderr as it comes.
 *
 * @param {string} script
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function building(script) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [script], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr: "see the messages above" }));
  });
}

/**
 * Make `<tmp>/<prefix>XXXXXX/{project,backend,home}`; resolves to the four paths.
 *
 * @param {string} prefix
 * @returns {Promise<{ root: string, project: string, backend: string, home: string }>}
 */
export async function makeWorkspace(prefix) {
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  const dirs = { root, project: path.join(root, "project"), backend: path.join(root, "backend"), home: path.join(root, "home") };
  await Promise.all([dirs.project, dirs.backend, dirs.home].map((d) => fs.promises.mkdir(d, { recursive: true })));
  return dirs;
}

/**
 * Write a plain-JavaScript Pulumi project (no TypeScript step per run unless `typescript` is left
 * to the language host's default).
 *
 * @param {string} dir the project directory
 * @param {{ name: string, program: string, description?: string, typescript?: boolean }} project
 */
export async function writeProject(dir, { name, program, description, typescript }) {
  const runtime = typescript === undefined ? "runtime: nodejs\n" : `runtime:\n  name: nodejs\n  options:\n    typescript: ${typescript}\n`;
  const yaml = `name: ${name}\n${runtime}${description ? `description: ${description}\n` : ""}main: index.js\n`;
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), yaml);
  await fs.promises.writeFile(path.join(dir, "package.json"), `${JSON.stringify({ name, private: true, main: "index.js" }, null, 2)}\n`);
  await fs.promises.writeFile(path.join(dir, "index.js"), program);
}

/**
 * The environment of a CLI command on a workspace: this process's environment without any
 * PULUMI_* or CMS_* variable, the CLI's bin directory first on PATH, the workspace's backend and
 * home, no update check, no plugin download, no prompt, no colour (unless `color`); then `env` on top (the
 * caller's endpoint and token go there).
 *
 * @param {{ binDir: string, backend: string, home: string, passphrase: string, env?: Record<string, string>, color?: boolean }} options
 * @returns {Record<string, string>}
 */
function workspaceEnv({ binDir, backend, home, passphrase, env = {}, color = false }) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("PULUMI_") || k.startsWith("CMS_")) continue;
    out[k] = v;
  }
  return {
    ...out,
    PATH: `${binDir}${path.delimiter}${out.PATH ?? ""}`,
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_HOME: home,
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    ...(color ? {} : { NO_COLOR: "1" }),
    ...env,
  };
}

/**
 * The Automation API starts the CLI with this process's environment under the workspace's
 * variables: a PULUMI_* or CMS_* variable of this process that {@link workspaceEnv} left out is
 * set empty, which the CLI and the provider read as unset.
 *
 * @param {Record<string, string>} env
 * @returns {Record<string, string>}
 */
function masked(env) {
  const out = { ...env };
  for (const k of Object.keys(process.env)) {
    if ((k.startsWith("PULUMI_") || k.startsWith("CMS_")) && !(k in out)) out[k] = "";
  }
  return out;
}

/**
 * What a command prints (stdout and stderr interleaved, as they arrive), copied to this
 * process's stderr with `echo` and handed to `onOutput`.
 *
 * @param {boolean} echo
 * @param {((chunk: string) => void) | undefined} onOutput
 */
function outputSink(echo, onOutput) {
  const sink = {
    text: "",
    /** @param {string} d */
    add: (d) => {
      sink.text += d;
      if (echo) process.stderr.write(d);
      onOutput?.(d);
    },
  };
  return sink;
}

/**
 * A resource step of an engine event, in order of the events.
 *
 * @typedef {object} ResourceStep
 * @property {number} sequence
 * @property {"pre" | "outputs" | "failed"} kind
 * @property {OpType} op  the engine's step op: create, update, same, delete, replace, create-replacement, delete-replaced, read, import, refresh, ...
 * @property {string} urn
 * @property {string} type
 * @property {import("@pulumi/pulumi/automation/index.js").StepEventMetadata} metadata
 */

/**
 * The resource steps of engine events.
 *
 * @param {EngineEvent[]} events
 * @returns {ResourceStep[]}
 */
function resourceSteps(events) {
  /** @type {ResourceStep[]} */
  const steps = [];
  for (const e of events) {
    /** @type {[ResourceStep["kind"], import("@pulumi/pulumi/automation/index.js").StepEventMetadata] | undefined} */
    const step = e.resourcePreEvent
      ? ["pre", e.resourcePreEvent.metadata]
      : e.resOutputsEvent
        ? ["outputs", e.resOutputsEvent.metadata]
        : e.resOpFailedEvent
          ? ["failed", e.resOpFailedEvent.metadata]
          : undefined;
    if (step) steps.push({ sequence: e.sequence, kind: step[0], op: step[1].op, urn: step[1].urn, type: step[1].type, metadata: step[1] });
  }
  return steps;
}

/**
 * The result of an operation: what the CLI printed (as a user sees it) and its engine events.
 *
 * @typedef {RunResult & { events: EngineEvent[], steps: ResourceStep[], summary: SummaryEvent | undefined, errors: string[] }} OperationResult
 */

/**
 * @typedef {object} RunOptions
 * @property {boolean} [allowFailure]  resolve with a non-zero `code` instead of throwing {@link PulumiCommandError}
 * @property {Record<string, string>} [env]  extra environment of this command
 * @property {number} [timeoutMs]
 * @property {(chunk: string) => void} [onOutput]  sees the CLI's output as it arrives
 * @property {(event: EngineEvent) => void} [onEvent]  sees each engine event as it arrives
 * @property {AbortSignal} [signal]  stops the command (SIGINT, as Ctrl-C would)
 */

/** @typedef {"up" | "preview" | "refresh" | "destroy"} Operation */

/**
 * The CLI flags each operation takes, as the Automation API's option names (a flag with a value
 * repeats into a list; `--parallel` takes a number). Anything else is refused, naming the flag.
 */
/** @typedef {Record<string, [string, "flag" | "list" | "number" | "ignored"]>} FlagTable */
/** @type {FlagTable} every operation's */
const ANY = {
  "--run-program": ["runProgram", "flag"],
  "--target": ["target", "list"],
  "--parallel": ["parallel", "number"],
};
/** @type {FlagTable} what the driver always passes to the operations that change the stack */
const APPLY = { "--yes": ["", "ignored"], "--skip-preview": ["", "ignored"] };
/** @type {FlagTable} `up`'s and `preview`'s */
const PLAN = {
  "--expect-no-changes": ["expectNoChanges", "flag"],
  "--refresh": ["refresh", "flag"],
  "--diff": ["diff", "flag"],
  "--replace": ["replace", "list"],
};
/** @type {Record<Operation, FlagTable>} */
const FLAGS = {
  up: { ...ANY, ...APPLY, ...PLAN },
  preview: { ...ANY, ...PLAN },
  refresh: {
    ...ANY,
    ...APPLY,
    "--expect-no-changes": ["expectNoChanges", "flag"],
    "--clear-pending-creates": ["clearPendingCreates", "flag"],
  },
  destroy: { ...ANY, ...APPLY },
};

/**
 * @param {Operation} operation
 * @param {string[]} args
 * @returns {Record<string, boolean | number | string[]>}
 */
function operationOptions(operation, args) {
  /** @type {Record<string, boolean | number | string[]>} */
  const options = {};
  for (let i = 0; i < args.length; i++) {
    const flag = FLAGS[operation][args[i]];
    if (!flag) throw new Error(`pulumi ${operation}: the driver does not know the flag ${args[i]}`);
    const [name, kind] = flag;
    if (kind === "flag") options[name] = true;
    else if (kind !== "ignored") {
      const value = args[++i];
      if (value === undefined) throw new Error(`pulumi ${operation}: ${args[i - 1]} needs a value`);
      const before = /** @type {string[] | undefined} */ (options[name]);
      options[name] = kind === "number" ? Number(value) : [...(before ?? []), value];
    }
  }
  return options;
}

/**
 * A Pulumi project and one of its stacks on a temporary workspace; see {@link openProject}.
 */
export class PulumiProject {
  /**
   * @param {object} fields
   * @param {string} fields.root      the workspace directory (removed by {@link PulumiProject.dispose})
   * @param {string} fields.dir       the project directory
   * @param {string} fields.backend
   * @param {string} fields.home
   * @param {string} fields.name      the project's name
   * @param {string} fields.stack     the stack's name
   * @param {string} fields.binDir
   * @param {string} fields.passphrase
   * @param {Record<string, string>} fields.env   extra environment of every command
   * @param {boolean} fields.echo     copy the CLI's output to this process's stderr
   * @param {boolean} fields.color    let the CLI colour its output (for people watching)
   * @param {AutomationWorkspace} fields.workspace
   * @param {AutomationStack} fields.automation
   */
  constructor(fields) {
    this.root = fields.root;
    this.dir = fields.dir;
    this.backend = fields.backend;
    this.home = fields.home;
    this.name = fields.name;
    this.stack = fields.stack;
    this.binDir = fields.binDir;
    this.passphrase = fields.passphrase;
    this.env = fields.env;
    this.echo = fields.echo;
    this.color = fields.color;
    this.workspace = fields.workspace;
    this.automation = fields.automation;
  }

  /**
   * Environment of every CLI command: offline, isolated, no inherited PULUMI_* / CMS_*.
   *
   * @param {Record<string, string>} [extra]
   */
  cliEnv(extra = {}) {
    const { binDir, backend, home, passphrase, color } = this;
    return workspaceEnv({ binDir, backend, home, passphrase, color, env: { ...this.env, ...extra } });
  }

  /**
   * `up`, `preview`, `refresh` or `destroy` through the Automation API, its CLI flags given as
   * `args`: the text the CLI printed and the engine events. Throws {@link PulumiCommandError} on
   * failure unless `allowFailure`.
   *
   * @param {Operation} operation
   * @param {string[]} args
   * @param {RunOptions} [options]
   * @returns {Promise<OperationResult>}
   */
  async operation(
    operation,
    args,
    { allowFailure = false, env, timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS, onOutput, onEvent, signal: stop } = {},
  ) {
    const started = Date.now();
    /** @type {EngineEvent[]} */
    const events = [];
    let stdout = "";
    let stderr = "";
    const out = outputSink(this.echo, onOutput);
    const timeout = AbortSignal.timeout(timeoutMs);
    const base = this.workspace.envVars;
    this.workspace.envVars = masked(this.cliEnv(env));
    let code = 0;
    try {
      await this.automation[operation]({
        ...operationOptions(operation, args),
        color: this.color ? "always" : "never",
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
        onEvent: (/** @type {EngineEvent} */ e) => {
          events.push(e);
          onEvent?.(e);
        },
        onOutput: (/** @type {string} */ d) => {
          stdout += d;
          out.add(d);
        },
        onError: (/** @type {string} */ d) => {
          stderr += d;
          out.add(d);
        },
      });
    } catch (e) {
      const failed = failedCommand(e);
      if (!failed) throw e;
      code = failed.code;
      if (!out.text) {
        // A failure before the CLI ran (it could not be started) reaches no callback.
        stderr = failed.stderr;
        out.text = stderr;
      }
    } finally {
      this.workspace.envVars = base;
    }
    const result = {
      command: `pulumi ${operation} ${args.join(" ")}`.trim(),
      code,
      signal: null,
      timedOut: timeout.aborted,
      stdout,
      stderr,
      output: out.text,
      durationMs: Date.now() - started,
      events,
      steps: resourceSteps(events),
      summary: events.find((e) => e.summaryEvent)?.summaryEvent,
      errors: events.flatMap((e) =>
        e.diagnosticEvent?.severity === "error" ? [`${e.diagnosticEvent.urn ?? ""} ${e.diagnosticEvent.message}`.trim()] : [],
      ),
    };
    if (code !== 0 && !allowFailure) throw new PulumiCommandError(result);
    return result;
  }

  /**
   * `pulumi up --yes --skip-preview [args]`.
   *
   * @param {string[]} [args]
   * @param {RunOptions} [options]
   */
  up(args = [], options) {
    return this.operation("up", args, options);
  }

  /**
   * `pulumi preview [args]` (e.g. `["--expect-no-changes"]`).
   *
   * @param {string[]} [args]
   * @param {RunOptions} [options]
   */
  preview(args = [], options) {
    return this.operation("preview", args, options);
  }

  /**
   * `pulumi refresh --yes --skip-preview [args]`.
   *
   * @param {string[]} [args]
   * @param {RunOptions} [options]
   */
  refresh(args = [], options) {
    return this.operation("refresh", args, options);
  }

  /**
   * `pulumi destroy --yes --skip-preview [args]`.
   *
   * @param {string[]} [args]
   * @param {RunOptions} [options]
   */
  destroy(args = [], options) {
    return this.operation("destroy", args, options);
  }

  /**
   * Any other CLI command (`pulumi --non-interactive <args>` in the project directory), through
   * the Automation API's command runner. Throws {@link PulumiCommandError} on a non-zero exit
   * unless `allowFailure`.
   *
   * @param {string[]} args
   * @param {Omit<RunOptions, "onEvent">} [options]
   * @returns {Promise<RunResult>}
   */
  async run(args, { allowFailure = false, env, timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS, onOutput } = {}) {
    const started = Date.now();
    const out = outputSink(this.echo, onOutput);
    const signal = AbortSignal.timeout(timeoutMs);
    /** @type {CommandOutcome} */
    let done;
    try {
      done = await /** @type {CommandRunner} */ (/** @type {unknown} */ (this.workspace.pulumiCommand)).run(
        [...args],
        this.dir,
        masked(this.cliEnv(env)),
        out.add,
        out.add,
        signal,
      );
    } catch (e) {
      const failed = failedCommand(e);
      if (!failed) throw e;
      done = failed;
      if (!out.text) out.text = done.stderr;
    }
    const result = {
      command: `pulumi ${args.join(" ")}`,
      code: done.code,
      signal: null,
      timedOut: signal.aborted,
      stdout: done.stdout,
      stderr: done.stderr,
      output: out.text,
      durationMs: Date.now() - started,
    };
    if (result.code !== 0 && !allowFailure) throw new PulumiCommandError(result);
    return result;
  }

  /**
   * `pulumi <args>` as a direct child, for the callers that kill it (`onSpawn` hands over the
   * child; kill its tree with {@link killTree}). Never throws for a non-zero exit.
   *
   * @param {string[]} args
   * @param {Omit<ExecOptions, "cwd" | "env"> & { env?: Record<string, string> }} [options]
   */
  spawn(args, { env, ...options } = {}) {
    return execFile(path.join(this.binDir, "pulumi"), ["--non-interactive", "--color=never", ...args], {
      ...options,
      cwd: this.dir,
      env: this.cliEnv(env),
      onOutput: outputSink(this.echo, options.onOutput).add,
    });
  }

  /**
   * `pulumi config set [--secret] [--path] key value` (key in the project namespace unless it has a colon).
   *
   * @param {string} key
   * @param {string | number} value
   * @param {{ secret?: boolean, path?: boolean }} [options]
   */
  async setConfig(key, value, { secret = false, path = false } = {}) {
    await this.withEnv(() => this.automation.setConfig(key, { value: String(value), secret }, path));
  }

  /**
   * Plain and secret config in one `pulumi config set-all`.
   *
   * @param {Record<string, string | number>} plain
   * @param {Record<string, string>} [secret]
   */
  async setConfigs(plain, secret = {}) {
    /** @type {import("@pulumi/pulumi/automation/index.js").ConfigMap} */
    const all = {};
    for (const [k, v] of Object.entries(plain)) all[k] = { value: String(v), secret: false };
    for (const [k, v] of Object.entries(secret)) all[k] = { value: v, secret: true };
    if (Object.keys(all).length > 0) await this.withEnv(() => this.automation.setAllConfig(all));
  }

  /** @param {string} key */
  async removeConfig(key) {
    await this.withEnv(() => this.automation.removeConfig(key));
  }

  /** `pulumi cancel`: stops the stack's running update; false when there was none to stop. */
  async cancel() {
    return this.withEnv(() => this.automation.cancel()).then(
      () => true,
      (e) => {
        if (e instanceof CommandError) return false;
        throw e;
      },
    );
  }

  /**
   * A new stack of this project, on the same workspace (`pulumi stack init`).
   *
   * @param {string} stack
   * @returns {Promise<PulumiProject>}
   */
  async otherStack(stack) {
    const automationStack = withoutAfterCommands(await this.withEnv(() => Stack.create(stack, this.workspace)));
    return new PulumiProject({ ...this, stack, automation: automationStack });
  }

  /**
   * Runs `fn` with the workspace's environment set to this project's.
   *
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async withEnv(fn) {
    const base = this.workspace.envVars;
    this.workspace.envVars = masked(this.cliEnv());
    try {
      return await fn();
    } finally {
      this.workspace.envVars = base;
    }
  }

  /**
   * `pulumi stack export` (secrets stay encrypted, unlike the Automation API's `exportStack`).
   *
   * @returns {Promise<{ text: string, state: any, resources: Array<{ urn: string, type: string, id?: string, inputs: any, outputs: any, initErrors?: string[], [k: string]: any }> }>}
   */
  async exportStack() {
    const result = await this.run(["stack", "export", "--stack", this.stack]);
    const state = JSON.parse(result.stdout);
    return { text: result.stdout, state, resources: state.deployment?.resources ?? [] };
  }

  /** The Cluster resources of the stack's state (from `pulumi stack export`). */
  async clusterResources() {
    return (await this.exportStack()).resources.filter((r) => r.type === CLUSTER_TYPE);
  }

  /**
   * `pulumi stack output --json` (secrets shown as "[secret]" unless showSecrets).
   *
   * @param {{ showSecrets?: boolean }} [options]
   * @returns {Promise<Record<string, any>>}
   */
  async outputs({ showSecrets = false } = {}) {
    const result = await this.run(["stack", "output", "--json", "--stack", this.stack, ...(showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(result.stdout);
  }

  /** Write a new program (index.js). @param {string} source */
  async writeProgram(source) {
    await fs.promises.writeFile(path.join(this.dir, "index.js"), source);
  }

  /** Remove the temporary directory (state, home, project). Does not destroy resources. */
  async dispose() {
    await fs.promises.rm(this.root, { recursive: true, force: true });
  }
}

/**
 * @typedef {object} OpenProjectOptions
 * @property {{ root: string, project: string, backend: string, home: string }} workspace  from {@link makeWorkspace}
 * @property {string} name       the project's name (as in its Pulumi.yaml)
 * @property {string} stack      the stack to create
 * @property {string} passphrase of the stack's secrets
 * @property {Record<string, string>} [env]  extra environment of every command
 * @property {boolean} [echo]
 * @property {boolean} [color]   let the CLI colour its output
 * @property {boolean} [build]   build the CLI if it is missing (see {@link findPulumi})
 */

/**
 * Open a written project (see {@link writeProject}) on the Automation API and create its stack.
 *
 * @param {OpenProjectOptions} options
 * @returns {Promise<PulumiProject>}
 */
export async function openProject({ workspace: dirs, name, stack, passphrase, env = {}, echo = false, color = false, build = false }) {
  const { binDir, command } = await findPulumi({ build });
  const envVars = masked(workspaceEnv({ binDir, backend: dirs.backend, home: dirs.home, passphrase, env, color }));
  const workspace = await LocalWorkspace.create({ workDir: dirs.project, pulumiHome: dirs.home, envVars, pulumiCommand: command });
  const automationStack = withoutAfterCommands(await Stack.create(stack, workspace));
  return new PulumiProject({
    root: dirs.root,
    dir: dirs.project,
    backend: dirs.backend,
    home: dirs.home,
    name,
    stack,
    binDir,
    passphrase,
    env,
    echo,
    color,
    workspace,
    automation: automationStack,
  });
}

/**
 * The stack with what `up`, `refresh` and `destroy` run after the command left out: two
 * `pulumi stack output` and a `pulumi stack history`, three more CLI processes per command (a
 * quarter of the lifecycle suite's time). The driver takes the summary from the engine events,
 * and outputs only when asked ({@link PulumiProject.outputs}).
 *
 * @param {AutomationStack} stack
 * @returns {AutomationStack}
 */
function withoutAfterCommands(stack) {
  stack.outputs = async () => ({});
  stack.info = async () => undefined;
  return stack;
}

// The process tree read from /proc is the emulator tests' (the root may depend on the emulator, not the reverse).
export { alive, descendants } from "../../packages/emulator/test/support/process-tree.mjs";

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
