#!/usr/bin/env node
/**
 * `cms-emulator`: runs the emulator as a standalone server.
 *
 * The first stdout line is always `cms-emulator listening on http://HOST:PORT`; generated
 * tokens are printed once after it. Tokens given by flag or file are never printed.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PLANS, toPrincipal } from "./http/auth";
import { startEmulator } from "./index";
import { parsePlanLimits } from "./http/limits";
import { DEFAULT_TIMINGS } from "./model/state";
import { watchLauncher } from "./cli/launcher-watch";
import { runTokenCommand } from "./cli/token-command";
import type { EmulatorOptions, Plan, RunningEmulator, TokenSpec } from "./types";

/** Default port of the standalone emulator. */
export const DEFAULT_PORT = 8787;

const USAGE = `Usage: cms-emulator [options]
       cms-emulator token create NAME --permissions LIST --expires DURATION [options]

Local emulator of the Cluster Management Service API (/v1) with a control API (/_emulator/).
"token create" makes a service token on a running emulator (cms-emulator token --help).

Options:
  --host HOST               interface to bind (default 127.0.0.1)
  --port N                  port, 0 picks a free one (default ${DEFAULT_PORT})
  --tokens FILE             JSON {"tokens":[{"token","permissions","scope","plan","expires_at"?}]}
  --token TOKEN             one token with every permission and scope * (env CMS_EMULATOR_TOKEN)
  --plan PLAN               plan of --token or of the generated dev token: community, pro,
                            enterprise (default enterprise)
  --admin-token TOKEN       bearer token of /_emulator/ (env CMS_EMULATOR_ADMIN_TOKEN);
                            generated and printed when absent
  --provision-seconds S     duration of a create (default ${DEFAULT_TIMINGS.provisionSeconds})
  --scale-seconds S         duration of a PATCH / scale / resize (default ${DEFAULT_TIMINGS.scaleSeconds})
  --delete-seconds S        duration of a delete (default ${DEFAULT_TIMINGS.deleteSeconds})
  --upgrade-seconds S       duration of a console upgrade (default ${DEFAULT_TIMINGS.upgradeSeconds})
  --state FILE              keep clusters across restarts in FILE, an SQLite database
                            (one emulator per file; default: memory only)
  --rate-limits LIST        override plan limits, e.g. enterprise=1000000 (benchmarks)
  --kubernetes              back every cluster with a real Kubernetes API server: one
                            kube-apiserver per cluster on a shared etcd (the package's
                            docs/kubernetes.md); the binaries come from KUBEBUILDER_ASSETS,
                            the cache that cms-ensure-kubernetes fills, or PATH
  --kubernetes-bin DIR      the same, with kube-apiserver and etcd from DIR
  --kubernetes-kubeconfig FILE
                            instead, a namespace per cluster in the cluster FILE's current
                            context reaches (kind, minikube, k3d)
  --log                     log one line per request (never headers or bodies)
  --background              return once it listens (exit status non-zero, with the error,
                            when it cannot start); it keeps running, and its errors still
                            go to this stderr (when that is a pipe, which it would hold
                            open, to a file it names); stop it with kill PID
  --pid-file FILE           write the process id to FILE once listening (removed on stop)
  -h, --help                show this help
`;

/** The command line: the emulator's options and how the process runs. */
export interface CliOptions {
  emulator: EmulatorOptions;
  /** Return once listening, leaving the emulator running in a process of its own. */
  background: boolean;
  pidFile?: string;
}

/** Set in the process that `--background` starts: it reports readiness to its starter over IPC. */
const BACKGROUND_CHILD_ENV = "CMS_EMULATOR_BACKGROUND_CHILD";

/** Parses argv into emulator options; throws Error with a message naming the flag. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      tokens: { type: "string" },
      token: { type: "string" },
      plan: { type: "string" },
      "admin-token": { type: "string" },
      "provision-seconds": { type: "string" },
      "scale-seconds": { type: "string" },
      "delete-seconds": { type: "string" },
      "upgrade-seconds": { type: "string" },
      state: { type: "string" },
      "rate-limits": { type: "string" },
      kubernetes: { type: "boolean" },
      "kubernetes-bin": { type: "string" },
      "kubernetes-kubeconfig": { type: "string" },
      log: { type: "boolean" },
      background: { type: "boolean" },
      "pid-file": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const opts: EmulatorOptions = { host: values.host ?? "127.0.0.1", port: DEFAULT_PORT };
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new Error("--port must be an integer between 0 and 65535");
    opts.port = Number(values.port);
  }
  const seconds = (flag: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 86400)
      throw new Error(`--${flag} must be a number of seconds between 0 and 86400`);
    return n;
  };
  opts.provisionSeconds = seconds("provision-seconds", values["provision-seconds"]);
  opts.scaleSeconds = seconds("scale-seconds", values["scale-seconds"]);
  opts.deleteSeconds = seconds("delete-seconds", values["delete-seconds"]);
  opts.upgradeSeconds = seconds("upgrade-seconds", values["upgrade-seconds"]);
  if (values.plan !== undefined) {
    if (!PLANS.includes(values.plan as Plan)) throw new Error(`--plan must be one of ${PLANS.join(", ")}`);
    opts.plan = values.plan as Plan;
  }
  opts.token = flagToken(values.token !== undefined ? "--token" : "CMS_EMULATOR_TOKEN", values.token ?? env.CMS_EMULATOR_TOKEN);
  opts.adminToken = flagToken(
    values["admin-token"] !== undefined ? "--admin-token" : "CMS_EMULATOR_ADMIN_TOKEN",
    values["admin-token"] ?? env.CMS_EMULATOR_ADMIN_TOKEN,
  );
  if (values.tokens !== undefined) opts.tokens = readTokensFile(values.tokens);
  if (values.state !== undefined) opts.statePath = values.state;
  if (values["rate-limits"] !== undefined) opts.planLimits = parsePlanLimits(values["rate-limits"]);
  if (values["kubernetes-bin"] !== undefined && values["kubernetes-kubeconfig"] !== undefined) {
    throw new Error("--kubernetes-bin and --kubernetes-kubeconfig exclude each other: run API servers, or use your cluster");
  }
  if (values.kubernetes || values["kubernetes-bin"] !== undefined || values["kubernetes-kubeconfig"] !== undefined) {
    opts.kubernetes = {};
    if (values["kubernetes-bin"] !== undefined) opts.kubernetes.binDir = values["kubernetes-bin"];
    if (values["kubernetes-kubeconfig"] !== undefined) opts.kubernetes.kubeconfig = values["kubernetes-kubeconfig"];
  }
  opts.logger = values.log ?? false;
  if (values["pid-file"] === "") throw new Error("--pid-file must name a file");
  return { emulator: opts, background: values.background ?? false, pidFile: values["pid-file"] };
}

/**
 * A token given by flag or environment, checked by the rule of every service token, with the
 * message naming the flag (or variable) rather than the token list it would otherwise join.
 */
function flagToken(source: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  try {
    toPrincipal({ token, permissions: ["read"], scope: "*", plan: "enterprise" }, source);
  } catch (e) {
    throw new Error((e as Error).message.replace(`${source}.token `, `${source} `));
  }
  return token;
}

function readTokensFile(file: string): TokenSpec[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--tokens ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // The parser's message can quote the file's text, i.e. a token: say only where it broke.
    throw new Error(`--tokens ${file}: not valid JSON`);
  }
  const tokens = (data as { tokens?: unknown })?.tokens;
  if (!Array.isArray(tokens) || tokens.length === 0) {
    throw new Error(`--tokens ${file}: expected {"tokens":[{"token","permissions","scope","plan","expires_at"?}, ...]}`);
  }
  for (const [i, spec] of tokens.entries()) {
    try {
      toPrincipal(spec, `tokens[${i}]`);
    } catch (e) {
      throw new Error(`--tokens ${file}: ${(e as Error).message}`);
    }
  }
  return tokens as TokenSpec[];
}

/** Why the emulator could not start, with the flag that gets round it when there is one. */
function startFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (err.code === "EADDRINUSE" && err.syscall === "listen") {
    return (
      `port ${err.port} of ${err.address} is taken (EADDRINUSE), by another emulator or another server: ` +
      "choose another with --port N, or --port 0 for any free one"
    );
  }
  return err.message;
}

/**
 * `--background`: start this command again, without the flag, in a session of its own; print its
 * start-up lines and return 0 once it listens, or its exit status once it has failed (its error is
 * on the shared stderr, once). Its stderr stays this one's, so a later failure is not silent either.
 */
function runInBackground(argv: string[]): void {
  const args = argv.filter((a) => a !== "--background");
  // A pipe (`2>&1 | tee`, a CI step's log) the server kept open would never end for its reader:
  // then its errors go to a file instead, which the starter names.
  const logFile = isPipe(2) ? join(tmpdir(), `cms-emulator-${process.pid}-${Date.now()}.log`) : undefined;
  const stderr = logFile ? openSync(logFile, "a", 0o600) : "inherit";
  const child = spawn(process.execPath, [__filename, ...args], {
    detached: true,
    stdio: ["ignore", "ignore", stderr, "ipc"],
    env: { ...process.env, [BACKGROUND_CHILD_ENV]: "1" },
  });
  if (typeof stderr === "number") closeSync(stderr);
  const failed = (code: number | null, signal: NodeJS.Signals | null) => {
    // A failing child has said why on the shared stderr already (the port, the flag), or in the
    // file, which is said here: once. Only an end that says nothing needs this line.
    const said = logFile ? readFileSync(logFile, "utf8") : "";
    process.stderr.write(said);
    if (logFile) rmSync(logFile, { force: true });
    if (signal !== null || code === 0 || (logFile && !said)) {
      process.stderr.write(`cms-emulator: exited before listening (${signal ?? `status ${code}`})\n`);
    }
    process.exit(code || 1);
  };
  child.on("exit", failed);
  child.on("message", (startup) => {
    child.off("exit", failed);
    process.stdout.write(`${String(startup)}cms-emulator running in the background: pid ${child.pid} (stop it with: kill ${child.pid})\n`);
    if (logFile) process.stderr.write(`cms-emulator: its errors go to ${logFile} (this stderr is a pipe, which it would hold open)\n`);
    child.disconnect();
    child.unref();
  });
}

/** Whether descriptor `fd` is a pipe or a socket (not a terminal or a file). */
function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === "token") {
    process.exitCode = await runTokenCommand(process.argv.slice(3));
    return;
  }
  let cli: CliOptions | "help";
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`cms-emulator: ${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (cli === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (cli.background) {
    runInBackground(process.argv.slice(2));
    return;
  }
  const opts = cli.emulator;
  const generatedToken = opts.token === undefined && opts.tokens === undefined;
  const generatedAdmin = opts.adminToken === undefined;
  let emu: RunningEmulator;
  try {
    emu = await startEmulator(opts);
  } catch (e) {
    process.stderr.write(`cms-emulator: ${startFailure(e)}\n`);
    process.exit(1);
  }
  let startup = `cms-emulator listening on ${emu.url}\n`;
  if (generatedToken) startup += `dev token (read, write, admin; scope *; plan ${opts.plan ?? "enterprise"}): ${emu.token}\n`;
  if (generatedAdmin) startup += `admin token (/_emulator/ control API): ${emu.adminToken}\n`;
  const { pidFile } = cli;
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    emu
      .close()
      .then(() => {
        if (pidFile) rmSync(pidFile, { force: true });
        process.stderr.write(`cms-emulator stopped (${signal})\n`);
        process.exit(0);
      })
      .catch((e: Error) => {
        process.stderr.write(`cms-emulator: error while stopping: ${e.message}\n`);
        process.exit(1);
      });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  if (process.env[BACKGROUND_CHILD_ENV] === "1" && process.send) {
    // Started by --background: the starter prints the lines and returns; this process is on its own.
    process.send(startup);
    process.channel?.unref();
  } else {
    process.stdout.write(startup);
    watchLauncher(() => stop("npm exec, which started it, has exited"));
  }
}

if (require.main === module) void main();
