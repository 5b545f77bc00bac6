/**
 * Whether the stack's configuration file holds `cms:token` in plain text. The engine sends a
 * provider's configuration to CheckConfig with every secret revealed, and it writes a default
 * provider whose configuration did not change into the state before Configure can refuse
 * anything, so this is the one place a plain token can be refused before it reaches the state.
 * The engine starts plugins in the project's directory, where `Pulumi.<stack>.yaml` is; a token
 * set with `--secret` is written there as `secure: <ciphertext>`, one set without it as a string.
 */
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { CONFIG_TOKEN_KEY } from "../../connection/resolve";

/** The stack's name in a resource's URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
function stackOfUrn(urn: string): string | undefined {
  const m = /^urn:pulumi:([^:]+)::/.exec(urn);
  return m?.[1];
}

/** True when `Pulumi.<stack>.yaml` in `dir` holds `cms:token` as a plain string; false when it does not or cannot be read. */
export function stackFileHoldsPlainToken(urn: string, dir: string = process.cwd()): boolean {
  const stack = stackOfUrn(urn);
  if (!stack) return false;
  // An organization-qualified stack name (`org/project/stack`) names its file by the last part.
  const file = path.join(dir, `Pulumi.${stack.split("/").pop()}.yaml`);
  let doc: unknown;
  try {
    doc = parse(fs.readFileSync(file, "utf8"));
  } catch {
    return false;
  }
  const config = (doc as { config?: Record<string, unknown> } | null)?.config;
  return typeof config?.[CONFIG_TOKEN_KEY] === "string" && config[CONFIG_TOKEN_KEY] !== "";
}
