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
import { shownAsMessage } from "../shared/errors/shown-as-message";

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
