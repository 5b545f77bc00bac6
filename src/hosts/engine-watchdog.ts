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
import { readFileSync } from "node:fs";
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

/** The CLI starts the dynamic-provider host through a shell script; the engine is above it. */
const SHELLS = new Set(["sh", "dash", "bash", "ash", "zsh"]);

/**
 * The engine's process: the nearest ancestor of `from` (this process's parent by default) that
 * is not a shell. Undefined where `/proc` is missing (macOS, Windows): the probes alone decide there.
 */
export function engineProcess(from: number = process.ppid): ProcessIdentity | undefined {
  let pid = from;
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    const stat = procStat(pid);
    if (!stat) return undefined;
    if (!SHELLS.has(stat.name)) return { pid, startTime: stat.startTime };
    pid = stat.ppid;
  }
  return undefined;
}

/** False once the process has ended (a zombie has ended), or its pid belongs to another one. */
export function processAlive(identity: ProcessIdentity): boolean {
  const stat = procStat(identity.pid);
  return stat !== undefined && stat.state !== "Z" && stat.startTime === identity.startTime;
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
    process.stderr.write(`pulumi-cms: the Pulumi engine at ${address} is gone; the provider exits\n`);
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
