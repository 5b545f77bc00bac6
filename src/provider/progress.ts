/**
 * Progress lines for the person watching `pulumi up`. Native providers show a status next to the
 * resource in the CLI's progress view by logging ephemeral INFO messages tied to the resource's
 * URN; the dynamic-provider host does not offer that, but it is started with the engine's gRPC
 * address as its first argument, so we open our own Engine client to it. Outside that host (unit
 * tests, the program process) reporting is a no-op.
 */
import { createRequire } from "node:module";
import { runtime } from "../shared/runtime";
import { engineAddressFromHost } from "./host-process";

/** Where progress lines go. */
export interface ProgressSink {
  /**
   * Show `message` for the resource `urn` (transient: replaced by the next line). A sink without
   * {@link end} gets an operation's last line here too, and then resolves once it is delivered.
   */
  report(urn: string, message: string): void | Promise<void>;
  /**
   * Show the last line of an operation for `urn`, and resolve once it is delivered: the CLI keeps
   * showing a resource's last line next to its final status, so it must be sent before the
   * operation returns. It may be left out when no earlier line of the operation was shown, unless
   * `always` (the line says something the outcome alone does not, such as an import). Sinks
   * without it get {@link report}.
   */
  end?(urn: string, message: string, always?: boolean): Promise<void>;
  /**
   * Show a warning for the resource `urn` that stays in the CLI's output (diagnostics).
   * Resolves once delivered (or given up on): await it before the operation returns, or the
   * engine may finish the step before the warning arrives.
   */
  warn?(urn: string, message: string): Promise<void>;
}

/**
 * The sink in use, or undefined when nobody is watching (then the waiter also skips listing
 * nodes, which is only needed for the progress line).
 */
export function progressSink(): ProgressSink | undefined {
  const { settings, progress } = runtime();
  if (settings.progressSink) return settings.progressSink;
  if (progress.engine === undefined) progress.engine = connectToEngine(); // null: looked, no engine
  return progress.engine ?? undefined;
}

/** A progress callback for the resource's URN, or undefined when nobody is watching. */
export function progressFor(urn: string | undefined): ((line: string) => void) | undefined {
  const sink = progressSink();
  if (!sink || !urn) return undefined;
  return (line) => void sink.report(urn, line);
}

/** Wait for a message to reach the engine, for at most 5 s (a lost hint must not stall the operation). */
async function delivered(sending: void | Promise<void> | undefined): Promise<void> {
  if (!sending) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([sending, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
}

/**
 * The last progress line of an operation that succeeded: the CLI keeps showing a resource's last
 * line next to its final status, where an earlier one ("provisioning: 0/3 nodes ready") would be
 * stale. (The engine's sink sends it only when an earlier line was shown: {@link holdingLines}.)
 */
export async function endProgress(urn: string | undefined, outcome: string, always = false): Promise<void> {
  const sink = urn ? progressSink() : undefined;
  if (urn && sink) await delivered(sink.end ? sink.end(urn, outcome, always) : sink.report(urn, outcome));
}

/** How long a transient line is held before it is sent; see {@link holdingLines}. */
export const LINE_HOLD_MS = 100;

/**
 * Transient lines through `send`, each held for `holdMs` first: a line that a newer one (or the
 * operation's end) replaces meanwhile is never sent. The last line of an operation is sent only
 * when a line of the resource is on show (it is there to replace one that would be stale), or
 * when it must be. So an operation the service finishes at once costs the engine no message at
 * all, unless an earlier operation of the resource left a line; on a longer one, each line shows
 * a tenth of a second later.
 */
export function holdingLines(
  send: (urn: string, message: string) => Promise<void>,
  holdMs: number = LINE_HOLD_MS,
): Pick<Required<ProgressSink>, "report" | "end"> {
  const held = new Map<string, { message: string; timer: ReturnType<typeof setTimeout> }>();
  /**
   * Resources with a line on show: the CLI keeps a resource's last line through its later steps,
   * so once one was sent, every later operation of that resource ends with its own outcome (in a
   * replacement, "deleting original" would otherwise show the new cluster's "running" line).
   */
  const shown = new Set<string>();
  return {
    report(urn, message) {
      const line = held.get(urn);
      if (line) {
        line.message = message;
        return;
      }
      const timer = setTimeout(() => {
        const latest = held.get(urn);
        held.delete(urn);
        if (!latest) return;
        shown.add(urn);
        void send(urn, latest.message);
      }, holdMs);
      held.set(urn, { message, timer });
    },
    async end(urn, message, always = false) {
      const line = held.get(urn);
      if (line) clearTimeout(line.timer);
      held.delete(urn);
      if (shown.has(urn) || always) {
        shown.add(urn);
        await send(urn, message);
      }
    },
  };
}

/** A warning in the CLI's diagnostics for `urn`, delivered before the operation returns. */
export async function warnFor(urn: string, message: string): Promise<void> {
  await delivered(progressSink()?.warn?.(urn, message));
}

function connectToEngine(): ProgressSink | null {
  const address = engineAddressFromHost();
  if (!address) return null;
  try {
    // Load gRPC through @pulumi/pulumi so we use the very copy its generated stubs were built with.
    const engineGrpcPath = require.resolve("@pulumi/pulumi/proto/engine_grpc_pb");
    const fromPulumi = createRequire(engineGrpcPath);
    const engproto = fromPulumi(require.resolve("@pulumi/pulumi/proto/engine_pb"));
    // The channel is opened by the first line actually sent: most operations of a service that
    // answers at once send none (see holdingLines), and opening one costs the host a few ms of CPU
    // while the engine's other calls wait.
    let client: { log(req: unknown, done: () => void): void } | undefined;
    const engine = () => {
      if (!client) {
        const grpc = fromPulumi("@grpc/grpc-js");
        const { EngineClient } = fromPulumi(engineGrpcPath);
        client = new EngineClient(address, grpc.credentials.createInsecure()) as NonNullable<typeof client>;
      }
      return client;
    };
    // The last delivery of each resource: its lines are sent one after the other so they arrive in
    // order, while other resources' lines go meanwhile (an operation that ends waits for its own
    // last line, not for every line of the other operations running beside it). A failed delivery
    // is only a lost hint.
    const last = new Map<string, Promise<void>>();
    const send = (urn: string, message: string, severity: number, ephemeral: boolean): Promise<void> => {
      const delivered = (last.get(urn) ?? Promise.resolve()).then(
        () =>
          new Promise<void>((resolve) => {
            try {
              const req = new engproto.LogRequest();
              req.setSeverity(severity);
              req.setMessage(message);
              req.setUrn(urn);
              req.setEphemeral(ephemeral);
              engine().log(req, () => resolve());
            } catch {
              resolve();
            }
          }),
      );
      last.set(urn, delivered);
      void delivered.then(() => {
        if (last.get(urn) === delivered) last.delete(urn);
      });
      return delivered;
    };
    return {
      ...holdingLines((urn, message) => send(urn, message, engproto.LogSeverity.INFO, true)),
      warn: (urn, message) => send(urn, message, engproto.LogSeverity.WARNING, false),
    };
  } catch {
    return null;
  }
}
