/**
 * Ending a provider process when its engine is gone: the dynamic-provider host and the native
 * plugin alike.
 *
 * The Pulumi CLI starts each plugin in a process group of its own, so a CI runner that kills a
 * job's process group (a timeout, a cancelled pipeline) kills `pulumi` and leaves the provider
 * running: holding memory and the user's token, and polling the service for an operation nobody
 * will record. Neither `@pulumi/pulumi`'s host nor the gRPC server notices. Each is started with
 * the engine's gRPC address as an argument; while the engine lives it accepts connections there,
 * so a refused connection, twice in a row, means it is gone. A port is soon reused on a busy
 * runner, though, and another process's listener there would keep the provider alive for ever;
 * so where the system shows processes (`/proc`), the engine's process itself is watched too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";

/** How often the engine's address is probed. */
export const WATCHDOG_INTERVAL_MS = 10_000;
/** Consecutive refused probes that mean the engine is gone (the process then exits within 30 s). */
export const WATCHDOG_FAILURES = 2;

/** True when a TCP connection to `address` (`host:port`) is accepted within `timeoutMs`. */
export function engineReachable(address: string, timeoutMs = 5_000): Promise<boolean> {
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at).replace(/^\[|\]$/g, "") || "127.0.0.1";
  const port = Number(address.slice(at + 1));
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(true)); // slow is not gone: only a refusal counts
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** A process as `/proc` shows it: its start time tells it from a later process given the same pid. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

interface ProcStat {
  name: string;
  state: string;
  ppid: number;
  startTime: string;
}

/** `/proc/PID/stat`, or undefined where there is no such process (or no `/proc`). */
function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces and parentheses itself: the fields follow the last ")".
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  return { name: text.slice(text.indexOf("(") + 1, close), state: fields[0], ppid: Number(fields[1]), startTime: fields[19] };
}

/**
 * The CLI starts the dynamic-provider host through a shell script (`pulumi-resource-pulumi-nodejs`,
 * which the system names after the script, with the shell as its first argument); the engine is
 * above it.
 */
const SHELLS = new Set(["sh", "dash", "bash", "ash", "zsh"]);

/** Whether `pid` (named `name`) is a shell, or a script a shell runs. */
function isShell(pid: number, name: string): boolean {
  if (SHELLS.has(name)) return true;
  const first = procArgs(pid)[0] ?? "";
  return SHELLS.has(first.slice(first.lastIndexOf("/") + 1));
}

/**
 * The engine's process: the nearest ancestor of `from` (this process's parent by default) that
 * is not a shell. Undefined where `/proc` is missing (macOS, Windows): the probes alone decide there.
 */
export function engineProcess(from: number = process.ppid): ProcessIdentity | undefined {
  const above = nearestNotShell(from);
  return above && above.pid > 1 ? above : undefined;
}

/** The nearest of `from` and its ancestors that is not a shell (pid 1 included). */
function nearestNotShell(from: number): ProcessIdentity | undefined {
  let pid = from;
  for (let depth = 0; depth < 4 && pid >= 1; depth++) {
    const stat = procStat(pid);
    if (!stat) return undefined;
    if (!isShell(pid, stat.name)) return { pid, startTime: stat.startTime };
    pid = stat.ppid;
  }
  return undefined;
}

/** False once the process has ended (a zombie has ended), or its pid belongs to another one. */
export function processAlive(identity: ProcessIdentity): boolean {
  const stat = procStat(identity.pid);
  return stat !== undefined && stat.state !== "Z" && stat.startTime === identity.startTime;
}

/** `/proc/PID/cmdline` as arguments ([] for a process that is gone, or without `/proc`). */
function procArgs(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * The other dynamic-provider hosts of the engine at `address` that are orphans as this process
 * is (their nearest ancestor that is not a shell is this one's: the reaper that took both once the
 * engine was gone), where `/proc` shows them. The engine starts a host for each phase of a command
 * (the refresh of `up --refresh`, then the update), and this package's code, with this watchdog,
 * enters a host only with its first request for a Cluster: a host the kill reaches before that
 * has no watchdog of its own. A host of a live CLI that reuses the port has that CLI above it.
 */
export function orphanedSiblingHosts(address: string, self: number = process.pid): number[] {
  const reaper = nearestNotShell(process.ppid);
  if (!reaper) return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === self) continue;
    const args = procArgs(pid);
    if (args.at(-1) !== address || !args.some((a) => /[/\\]cmd[/\\]dynamic-provider([/\\]index\.js)?$/.test(a))) continue;
    const stat = procStat(pid);
    const above = stat && nearestNotShell(stat.ppid);
    if (above && above.pid === reaper.pid && above.startTime === reaper.startTime) found.push(pid);
  }
  return found;
}

/**
 * Probe the engine at `address` every {@link WATCHDOG_INTERVAL_MS} and exit the process after
 * {@link WATCHDOG_FAILURES} refusals in a row, or at once when the engine's process (`engine`,
 * where it can be known) has ended. Without an address (the program, tests, tools: not a
 * provider process) it does nothing. The timer never keeps the process alive by itself.
 */
export function startEngineWatchdog(
  /** Whether a watchdog runs in this process: its runtime's (one, whichever copy of the package started it). */
  watchdog: { started: boolean },
  address: string | undefined,
  exit: (code: number) => void = (code) => process.exit(code),
  intervalMs: number = WATCHDOG_INTERVAL_MS,
  engine: ProcessIdentity | undefined = address ? engineProcess() : undefined,
): (() => void) | undefined {
  if (!address || watchdog.started) return undefined;
  watchdog.started = true;
  let refused = 0;
  let probing = false;
  const gone = () => {
    clearInterval(timer);
    // Only once the engine's process is known to have ended: refused probes alone could be a
    // live engine's, whose hosts are not orphans.
    const siblings = engine && !processAlive(engine) ? orphanedSiblingHosts(address) : [];
    for (const pid of siblings) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // Gone meanwhile.
      }
    }
    const also = siblings.length > 0 ? ` (and ends the engine's other provider hosts left behind: ${siblings.join(", ")})` : "";
    process.stderr.write(`pulumi-cms: the Pulumi engine at ${address} is gone; the provider exits${also}\n`);
    exit(1);
  };
  const timer = setInterval(() => {
    if (engine && !processAlive(engine)) return gone();
    if (probing) return;
    probing = true;
    void engineReachable(address).then((ok) => {
      probing = false;
      refused = ok ? 0 : refused + 1;
      if (refused >= WATCHDOG_FAILURES) gone();
    });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    watchdog.started = false;
  };
}
