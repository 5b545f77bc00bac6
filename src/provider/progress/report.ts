/**
 * Progress lines for the person watching `pulumi up`: a status next to the resource in the CLI's
 * progress view, and warnings in its diagnostics. Where they go is the host's business (the
 * dynamic-provider host sends them to the engine: `hosts/engine-progress.ts`), offered in the
 * process's runtime (`../runtime.ts`); a tool or a test may take them instead (its settings'
 * `progressSink`). With neither (unit tests, the program process) reporting is a no-op.
 */
import type { ProgressSink } from "./sink";
import type { HostProgress } from "../runtime";
import type { ProviderSettings } from "../settings";

/**
 * The sink in use, or undefined when nobody is watching (then the waiter also skips listing
 * nodes, which is only needed for the progress line).
 */
export function progressSink(settings: ProviderSettings, host: HostProgress): ProgressSink | undefined {
  if (settings.progressSink) return settings.progressSink;
  if (host.sink === undefined && host.open) host.sink = host.open(); // null: looked, none
  return host.sink ?? undefined;
}

/** For a host: where progress lines go in its process. `open` is called once, on first use. */
export function offerHostProgress(host: HostProgress, open: () => ProgressSink | null): void {
  host.open ??= open;
}

/** A progress callback for the resource's URN, or undefined when nobody is watching. */
export function progressFor(sink: ProgressSink | undefined, urn: string | undefined): ((line: string) => void) | undefined {
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
export async function endProgress(sink: ProgressSink | undefined, urn: string | undefined, outcome: string, always = false): Promise<void> {
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
 * a tenth of a second later, except the first line of an operation that follows an earlier one's
 * last: that one is stale from the moment the new step shows, and is replaced at once.
 */
export function holdingLines(
  send: (urn: string, message: string) => Promise<void>,
  holdMs: number = LINE_HOLD_MS,
): Pick<Required<ProgressSink>, "report" | "end"> {
  const held = new Map<string, { message: string; timer: ReturnType<typeof setTimeout> }>();
  /**
   * The line on show for each resource that has one. The CLI keeps a resource's last line through
   * its later steps, so once one was sent, every later operation of that resource ends with its
   * own outcome (in a replacement, "deleting original" would otherwise show the new cluster's
   * "running" line). The same line is not sent again: the CLI would print it again in a CI log.
   */
  const onShow = new Map<string, string>();
  /** Resources whose line on show is the last line of an operation that has ended. */
  const ended = new Set<string>();
  const show = (urn: string, message: string): Promise<void> | undefined => {
    if (onShow.get(urn) === message) return undefined;
    onShow.set(urn, message);
    return send(urn, message);
  };
  return {
    report(urn, message) {
      if (ended.delete(urn)) {
        void show(urn, message);
        return;
      }
      const line = held.get(urn);
      if (line) {
        line.message = message;
        return;
      }
      const timer = setTimeout(() => {
        const latest = held.get(urn);
        held.delete(urn);
        if (!latest) return;
        void show(urn, latest.message);
      }, holdMs);
      held.set(urn, { message, timer });
    },
    async end(urn, message, always = false) {
      const line = held.get(urn);
      if (line) clearTimeout(line.timer);
      held.delete(urn);
      if (onShow.has(urn) || always) {
        ended.add(urn);
        await show(urn, message);
      }
    },
  };
}

/** A warning in the CLI's diagnostics for `urn`, delivered before the operation returns. */
export async function warnFor(sink: ProgressSink | undefined, urn: string, message: string): Promise<void> {
  await delivered(sink?.warn?.(urn, message));
}
