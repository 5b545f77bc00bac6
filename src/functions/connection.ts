/**
 * Connection for functions. They run in the program process (not in the provider host), so the
 * stack configuration is read with `pulumi.Config("cms")`; otherwise the same order as the
 * resource: explicit argument, then `cms:endpoint` / `cms:token`, then `CMS_ENDPOINT` /
 * `CMS_TOKEN`.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { CmsClient } from "../client";
import { dropEmpty, resolveConnection, safeMessage } from "../connection";
import { OperationError } from "../shared/operation-error";
import { codeOf } from "../shared/cms-error";
import { InvalidArgumentError } from "../shared/invalid-argument-error";
import { connectionFromStackConfig, refusePlainStackToken } from "../connection/stack-config";

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

/** A client for one function call. */
export async function functionClient(connection: FunctionConnectionArgs | undefined): Promise<{ client: CmsClient; token: string }> {
  refusePlainStackToken();
  const resolved = resolveConnection({
    explicit: dropEmpty(connection ?? {}),
    config: connectionFromStackConfig(),
    env: process.env,
    caller: "function",
  });
  // Loaded on the first call: a program that calls no function does not load the HTTP client.
  const { createClient } = await import("../client/index.js");
  return { client: createClient({ endpoint: resolved.endpoint, token: resolved.token }), token: resolved.token };
}

/**
 * Run one API call for the function `fn`, turning failures into an {@link OperationError} that
 * names the function, keeps the failure's `code` and never contains the token.
 */
export async function callApi<T>(
  fn: string,
  connection: FunctionConnectionArgs | undefined,
  call: (client: CmsClient) => Promise<T>,
): Promise<T> {
  const { client, token } = await functionClient(connection);
  try {
    return await call(client);
  } catch (e) {
    throw new OperationError(`${fn}: ${safeMessage(e, [token], "lookup")}`, codeOf(e, "operation_failed"));
  }
}

/** Throw a clear error naming the argument when a required id is missing or not a string. */
export function requireId(fn: string, field: string, value: unknown, shape: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidArgumentError(`${fn}: ${field} is required (a ${shape} id)`);
  }
  return value;
}
