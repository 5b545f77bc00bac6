/**
 * The process the provider runs in. The engine starts Pulumi's Node dynamic-provider host
 * (`@pulumi/pulumi/cmd/dynamic-provider/index.js <engine-address>`) for each command, and the
 * host loads the provider when the first operation arrives: every other operation the engine has
 * sent waits while it does. Outside that host (the program, tests, tools) nothing here applies.
 */
import { engineAddressFromArgs } from "../engine-address";

/**
 * The engine address when this process is Pulumi's Node dynamic-provider host
 * (`.../cmd/dynamic-provider/index.js <engine-address>`), else undefined.
 */
export function engineAddressFromHost(
  argv: readonly string[] = process.argv,
  mainFilename: string | undefined = require.main?.filename,
): string | undefined {
  if (!mainFilename || !/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(mainFilename)) return undefined;
  return engineAddressFromArgs(argv.slice(2));
}
