/**
 * Connection for functions. They run in the program process (not in the provider host), so the
 * stack configuration is read with `pulumi.Config("cms")`; otherwise the same order as the
 * resource: explicit argument, then `cms:endpoint` / `cms:token`, then `CMS_ENDPOINT` /
 * `CMS_TOKEN`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Connection, dropEmpty, resolveConnection } from "../connection";
import { type LookupCall, runLookup } from "../provider/lookups";
import { connectionFromStackConfig, refusePlainStackToken } from "../connection/stack-config";
import { processRuntime } from "../hosts/process";

export { connectionFromStackConfig };

/** Explicit connection of one function call. */
export interface FunctionConnectionArgs {
  /** Base URL of the service (without `/v1`). */
  endpoint?: string;
  /** API token. */
  token?: string;
}

/** Output-form counterpart of {@link FunctionConnectionArgs}. */
export interface FunctionConnectionInputs {
  /** Base URL of the service (without `/v1`). */
  endpoint?: pulumi.Input<string>;
  /** API token; a secret Input keeps the result secret too. */
  token?: pulumi.Input<string>;
}

/** The connection of one function call: its argument, then the stack configuration, then the environment. */
export function functionConnection(connection: FunctionConnectionArgs | undefined): Connection {
  refusePlainStackToken();
  return resolveConnection({
    explicit: dropEmpty(connection ?? {}),
    config: connectionFromStackConfig(),
    env: process.env,
    caller: "function",
  });
}

/**
 * Run the lookup `check` makes of its arguments (see `provider/lookups.ts`) for the function `fn`,
 * drawing on the process's limiters.
 * A failure reaches the program as the package's error, its class and `code` kept for a program
 * that catches it, and {@link shownAsMessage}: left uncaught, it is one message (the cause and
 * what to do), not an "unhandled exception" with this package's stack frames.
 */
export async function callApi<T>(fn: string, connection: FunctionConnectionArgs | undefined, check: () => LookupCall<T>): Promise<T> {
  try {
    const call = check();
    return await runLookup(processRuntime(), fn, functionConnection(connection), call);
  } catch (e) {
    throw shownAsMessage(e);
  }
}

/**
 * How `@pulumi/pulumi` tells a `RunError` (`RunError.isInstance`, which works across copies of the
 * SDK): its program runner prints such an error's message alone, without the stack.
 */
const RUN_ERROR_MARK = "__pulumiRunError";

/**
 * `e`, marked so that the Pulumi program runner prints its message alone if the program leaves it
 * uncaught. Its stack is emptied too: the runner still formats an uncaught error that has one with
 * `util.inspect`, for its trace, and that held a failing program for most of a minute (garbage
 * collection, in its CPU profile) before the message was shown; without a stack it takes the message.
 */
function shownAsMessage(e: unknown): unknown {
  if (e instanceof Error && (e as unknown as Record<string, unknown>)[RUN_ERROR_MARK] !== true) {
    Object.defineProperty(e, RUN_ERROR_MARK, { value: true });
    e.stack = "";
  }
  return e;
}
