/**
 * One failure, one message. `@pulumi/pulumi`'s dynamic-provider host
 * (`cmd/dynamic-provider/index.js`) answers a failed `check`, `diff`, `read` or `delete` to the
 * engine, which shows the message under the resource, and also prints it on its own stderr as
 * `${e}: ${e.stack}`, which the engine shows again under the stack: the message twice more, the
 * second copy with stack frames into the package's sources. (`create` and `update` answer with
 * the message alone and print nothing.)
 *
 * In the host process, {@link withoutHostEchoes} gives each such error an empty stack and
 * remembers the one line the host will print for it, and the host's `console.error` drops that
 * exact line (once). Every other line the host prints is left alone.
 */
import type { HostEchoes } from "../process";
import { engineAddressFromHost } from "./host-process";

/** The operations whose failures the host prints on stderr besides answering them. */
const ECHOED = ["check", "diff", "read", "delete"] as const;

/**
 * In the host: drop the host's stderr copy of the errors marked by {@link quiet}. Installed once
 * per process (`echoes` are its runtime's); the lines the host is about to print for errors
 * already answered to the engine are `echoes.pending`.
 */
function filterHostEchoes(echoes: HostEchoes): void {
  if (echoes.installed) return;
  echoes.installed = true;
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && echoes.pending.delete(args[0])) return;
    original(...args);
  };
}

/** The error to throw instead of `e`: stack-less, with the host's line for it expected. */
function quiet(echoes: HostEchoes, e: unknown): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  err.stack = "";
  echoes.pending.add(`${err}: `);
  return err;
}

/**
 * `provider`, whose failures of `check`, `diff`, `read` and `delete` reach the user once, through
 * the engine. Outside the dynamic-provider host (tests, tools), `provider` itself.
 */
export function withoutHostEchoes<T extends Partial<Record<(typeof ECHOED)[number], unknown>>>(echoes: HostEchoes, provider: T): T {
  if (!engineAddressFromHost()) return provider;
  filterHostEchoes(echoes);
  const p = provider as Record<string, unknown>;
  for (const name of ECHOED) {
    const method = p[name];
    if (typeof method !== "function") continue;
    p[name] = async (...args: unknown[]) => {
      try {
        return await method.apply(provider, args);
      } catch (e) {
        throw quiet(echoes, e);
      }
    };
  }
  return provider;
}
