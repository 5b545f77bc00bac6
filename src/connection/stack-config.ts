/**
 * The stack configuration as the program reads it (`pulumi.Config("cms")`): the Cluster resource
 * and the functions run in the program process. The provider host gets the same values from the
 * engine instead (`provider/host.ts`), so this module is not part of `connection/index.ts`.
 */
import * as pulumi from "@pulumi/pulumi";
import { plainTokenRefusal, SECRET_KEYS_ENV } from "./plain-token";
import { CONFIG_TOKEN_KEY, dropEmpty } from "./resolve";

/** `cms:endpoint` / `cms:token` from the stack configuration, when running in a Pulumi program. */
export function connectionFromStackConfig(): { endpoint?: string; token?: string } {
  try {
    const config = new pulumi.Config("cms");
    return dropEmpty({ endpoint: config.get("endpoint"), token: config.get("token") });
  } catch {
    return {};
  }
}

/**
 * Throw when the stack configuration holds `cms:token` in plain text (see `plain-token.ts`).
 * A `RunError`: the CLI shows its message once, without the program's stack.
 */
export function refusePlainStackToken(): void {
  let token: string | undefined;
  try {
    token = pulumi.runtime.getConfig(CONFIG_TOKEN_KEY);
  } catch {
    return; // not inside a Pulumi program
  }
  const refusal = plainTokenRefusal(token, process.env[SECRET_KEYS_ENV], pulumi.getStack());
  if (refusal) throw new pulumi.RunError(refusal);
}
