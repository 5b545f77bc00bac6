/**
 * `pulumi-resource-cms`'s command line: what the plugin's bundle runs (`scripts/bundle-plugin.mjs`),
 * both as the package's bin through Node.js and as the release's self-contained executable
 * (`scripts/release.mjs`), which is all a YAML or Go user has of the package: so the commands the
 * native face needs beside the plugin come with it, run by the same file.
 *
 * - `pulumi-resource-cms [ENGINE_ADDRESS]`: the plugin, as the engine starts it (`hosts/native/main.ts`);
 * - `pulumi-resource-cms --version`: the package's version;
 * - `pulumi-resource-cms kubeconfig exec-credential|save ...`: `cms-kubeconfig` (`kubernetes/cli.ts`);
 * - `pulumi-resource-cms recover ...`: `cms-recover` (`recover/cli.ts`).
 *
 * The engine starts a plugin with flags and its own address, never with one of these words first.
 */
import { PACKAGE_VERSION } from "./client/version";
import { runPlugin } from "./hosts/native/main";
import { run as runKubeconfig } from "./kubernetes/cli";
import { pluginKubeconfigCommand } from "./hosts/native/kubeconfig-command";
import { runProcess as runRecover } from "./recover/cli";

/** Runs the command line `argv` (without the executable, or `node` and the bin). */
export function runPluginCommand(argv: readonly string[]): void {
  const [first, ...rest] = argv;
  switch (first) {
    case "--version":
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return;
    case "kubeconfig":
      void runKubeconfig(rest, undefined, pluginKubeconfigCommand).then((code) => process.exit(code));
      return;
    case "recover":
      runRecover(rest);
      return;
    default:
      runPlugin();
  }
}
