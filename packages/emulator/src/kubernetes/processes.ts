/**
 * The child processes of `--kubernetes` (etcd, kube-apiserver): started tied to the emulator, so
 * that they stop with it even when it is killed outright and cannot stop them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The child runs under `sh`, whose stdin is a pipe from the emulator; a `cat` reads it (an
 * asynchronous list's stdin is /dev/null in sh, hence fd 3). When the emulator exits, however it
 * exits, the pipe closes, `cat` returns, and the child gets SIGTERM, then SIGKILL 5 s later: a
 * kube-apiserver whose etcd went away with the emulator does not finish its graceful shutdown.
 * Node has no parent-death signal of its own.
 */
const TIED =
  'exec 3<&0; "$@" </dev/null 3<&- & c=$!; { cat >/dev/null; kill -TERM "$c"; sleep 5; kill -KILL "$c"; } <&3 2>/dev/null & w=$!; exec 3<&-; wait "$c"; s=$?; kill "$w" 2>/dev/null; exit "$s"';

/** A started child and how to stop it. */
export interface TiedProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `command args` with stdout and stderr appended to `logFile`, with `env` added to the emulator's environment. */
export function spawnTied(command: string, args: string[], logFile: string, env: Record<string, string> = {}): TiedProcess {
  const log = openSync(logFile, "a");
  const child = spawn("sh", ["-c", TIED, "sh", command, ...args], {
    stdio: ["pipe", log, log],
    detached: true,
    env: { ...process.env, ...env },
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  return {
    child,
    exited,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => {
        try {
          // The whole group: sh, the child and the watcher.
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last `lines` lines of a log file, for an error message. */
export function logTail(file: string, lines = 5): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** How {@link waitUntil} polls. */
export interface WaitUntilOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Between probes. Default 100. */
  intervalMs?: number;
  /** Give up when this process exits first (it was to become ready). */
  process?: TiedProcess;
  /** The message when time runs out. Default `<what>: not ready after N s`. */
  timeoutMessage?: string;
}

/**
 * The one bounded poll of the Kubernetes backing: calls `probe` every `intervalMs` until it
 * returns true (a throwing probe counts as false); rejects when `process` exits first or
 * `timeoutMs` passes.
 */
export async function waitUntil(what: string, probe: () => Promise<boolean>, options: WaitUntilOptions): Promise<void> {
  const { timeoutMs, intervalMs = 100, process: child } = options;
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child?.exited.then(() => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`${what}: the process exited before it was ready`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(options.timeoutMessage ?? `${what}: not ready after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
