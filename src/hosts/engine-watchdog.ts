/**
 * Ending a provider process when its engine is gone: the dynamic-provider host and the native
 * plugin alike.
 *
 * The Pulumi CLI starts each plugin in a process group of its own, so a CI runner that kills a
 * job's process group (a timeout, a cancelled pipeline) kills `pulumi` and leaves the provider
 * running: holding memory and the user's token, and polling the service for an operation nobody
 * will record. Neither `@pulumi/pulumi`'s host nor the gRPC server notices. Each is started with
 * the engine's gRPC address as an argument; while the engine lives it accepts connections there,
 * so a refused connection, twice in a row, means it is gone.
 */
import { connect } from "node:net";
import { processSlot } from "../shared/runtime/process-slot";

/** Whether a watchdog runs in this process (one, whichever copy of the package started it). */
const watchdogState = processSlot("provider-host.engine-watchdog.v1", () => ({ started: false }));

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

/**
 * Probe the engine at `address` every {@link WATCHDOG_INTERVAL_MS} and exit the process after
 * {@link WATCHDOG_FAILURES} refusals in a row. Without an address (the program, tests, tools:
 * not a provider process) it does nothing. The timer never keeps the process alive by itself.
 */
export function startEngineWatchdog(
  address: string | undefined,
  exit: (code: number) => void = (code) => process.exit(code),
  intervalMs: number = WATCHDOG_INTERVAL_MS,
): (() => void) | undefined {
  const watchdog = watchdogState();
  if (!address || watchdog.started) return undefined;
  watchdog.started = true;
  let refused = 0;
  let probing = false;
  const timer = setInterval(() => {
    if (probing) return;
    probing = true;
    void engineReachable(address).then((ok) => {
      probing = false;
      refused = ok ? 0 : refused + 1;
      if (refused >= WATCHDOG_FAILURES) {
        clearInterval(timer);
        process.stderr.write(`pulumi-cms: the Pulumi engine at ${address} is gone; the provider exits\n`);
        exit(1);
      }
    });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    watchdog.started = false;
  };
}
