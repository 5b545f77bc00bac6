/**
 * `pulumi-resource-cms`'s command line: what the plugin's bundle runs (`scripts/bundle.mjs`),
 * both as the package's bin through Node.js and as the release's self-contained executable
 * (`scripts/release.mjs`), which is all a YAML or Go user has of the package: so the commands the
 * native face needs beside the plugin come with it, run by the same file.
 *
 * - `pulumi-resource-cms [ENGINE_ADDRESS]`: the plugin, as the engine starts it (`hosts/native/main.ts`);
 * - `pulumi-resource-cms --version` (or `version`): the package's version;
 * - `pulumi-resource-cms --help` (or `-h`, `help`): what follows here;
 * - `pulumi-resource-cms kubeconfig exec-credential|save ...`: `cms-kubeconfig` (`kubernetes/cli.ts`);
 * - `pulumi-resource-cms recover ...`: `cms-recover` (`recover/cli.ts`).
 *
 * The engine starts a plugin with flags and its own address, never with one of these words first;
 * any other word first is refused (a person typed it: serving would wait for an engine for ever).
 */
import { PACKAGE_VERSION } from "./client/version";
import { runPlugin } from "./hosts/native/main";
import { run as runKubeconfig } from "./kubernetes/cli";
import { pluginKubeconfigCommand } from "./hosts/native/kubeconfig-command";
import { runProcess as runRecover } from "./recover/cli";

const USAGE = `Usage: pulumi-resource-cms [--version | --help | kubeconfig ... | recover ...]

The Pulumi resource plugin of pulumi-cms (cms:index:Cluster). Pulumi starts it; a person rarely does.
  --version          print the plugin's version
  kubeconfig ...     cms-kubeconfig: exec-credential CLUSTER_ID (a kubeconfig's credential), save
  recover ...        cms-recover: record the clusters a killed pulumi up created in its stack
Each command's --help says more.
`;

/** Runs the command line `argv` (without the executable, or `node` and the bin). */
export function runPluginCommand(argv: readonly string[]): void {
  const [first, ...rest] = argv;
  switch (first) {
    case "--version":
    case "version":
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return;
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(USAGE);
      return;
    case "kubeconfig":
      void runKubeconfig(rest, undefined, pluginKubeconfigCommand).then((code) => process.exit(code));
      return;
    case "recover":
      runRecover(rest);
      return;
    default:
      // The engine's own arguments: its logging flags and its address (`host:port`), or nothing.
      if (first !== undefined && !first.startsWith("-") && !/:\d+$/.test(first)) {
        process.stderr.write(`pulumi-resource-cms: unknown command "${first}"\n\n${USAGE}`);
        process.exitCode = 2;
        return;
      }
      runPlugin();
  }
}
