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

/** Run the checked lookup `call` of the function `fn` (see `provider/lookups.ts`), drawing on the process's limiters. */
export function callApi<T>(fn: string, connection: FunctionConnectionArgs | undefined, call: LookupCall<T>): Promise<T> {
  return runLookup(processRuntime(), fn, functionConnection(connection), call);
}
