/**
 * A token in the stack configuration without `--secret`. The engine records the stack's
 * configuration in the state of the `pulumi-nodejs` provider that hosts every dynamic provider, so
 * a plain `cms:token` would be written there as it is, and `Pulumi.<stack>.yaml` holds it as it is
 * too. The program refuses it before registering anything of this package, naming the fix.
 */
import { CONFIG_TOKEN_KEY, ENV_TOKEN } from "./resolve";

/** The environment variable in which the language host lists the secret configuration keys (a JSON array). */
export const SECRET_KEYS_ENV = "PULUMI_CONFIG_SECRET_KEYS";

/**
 * The refusal's message when the stack configuration holds `cms:token` in plain text, else
 * `undefined`. `secretKeys` is the language host's list of secret keys as it passed it; when it
 * passed none the program cannot tell, and nothing is refused. `stack` names the file to look at.
 */
export function plainTokenRefusal(token: string | undefined, secretKeys: string | undefined, stack?: string): string | undefined {
  if (typeof token !== "string" || token.trim() === "" || secretKeys === undefined) return undefined;
  let keys: unknown;
  try {
    keys = JSON.parse(secretKeys);
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys) || keys.includes(CONFIG_TOKEN_KEY)) return undefined;
  return (
    `${CONFIG_TOKEN_KEY} is set in the stack configuration in plain text: Pulumi.${stack || "<stack>"}.yaml holds the token ` +
    `unencrypted, and the stack's state would too. Set it again as a secret: ` +
    `\`pulumi config set --secret ${CONFIG_TOKEN_KEY} <token>\` (or use the ${ENV_TOKEN} environment variable and ` +
    `\`pulumi config rm ${CONFIG_TOKEN_KEY}\`).`
  );
}
