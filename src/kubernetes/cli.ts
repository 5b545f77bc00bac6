#!/usr/bin/env node
/**
 * `cms-kubeconfig`: kubeconfigs whose credential survives a rotation (provider/exec-credential.ts).
 *
 * - `cms-kubeconfig exec-credential CLUSTER_ID [--endpoint URL]`: what kubectl and the Kubernetes
 *   provider run; prints the cluster's current credential as an ExecCredential on stdout. Errors
 *   go to stderr, one line, exit 1 (kubectl and the Kubernetes provider show them as they are).
 * - `cms-kubeconfig save CLUSTER_ID [--endpoint URL] [--file PATH]`: a kubeconfig for kubectl that
 *   runs the above (with this installation's absolute paths: the file is for this machine), on
 *   stdout or written to PATH (mode 0600).
 *
 * The token is never printed and never written: the command reads it when it runs (`CMS_TOKEN`,
 * or the token recorded in a stack's kubeconfig).
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "../client";
import { ENV_ENDPOINT, ENV_TOKEN } from "../connection";
import { redact } from "../client/redact";
import { CmsError } from "../shared/errors/cms-error";
import {
  credentialConnection,
  credentialOf,
  currentKubeconfig,
  type ExecCommand,
  execCredential,
  execKubeconfig,
} from "../provider/exec-credential";

const USAGE = `Usage:
  cms-kubeconfig exec-credential CLUSTER_ID [--endpoint URL]
  cms-kubeconfig save CLUSTER_ID [--endpoint URL] [--file PATH]

exec-credential  prints the cluster's current credential as a client.authentication.k8s.io/v1
                 ExecCredential: the command a kubeconfig's exec plugin runs.
save             writes a kubeconfig for kubectl that runs exec-credential at each use, so it
                 keeps working after the credential is rotated (stdout, or --file PATH).

The service's endpoint: --endpoint, else ${ENV_ENDPOINT}. The token: ${ENV_TOKEN}, read when
the credential is fetched (never written anywhere).
`;

/** A command line this command does not take; answered with the usage, exit 2. */
class UsageError extends CmsError {
  readonly code = "usage";
}

/** What a subcommand writes; injected by tests. */
export interface Io {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  env: process.env,
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** This script run by this Node.js: the command a kubeconfig written by `save` runs. */
function thisScript(): ExecCommand {
  return { command: process.execPath, args: [realpathSync(__filename)] };
}

/**
 * Runs the command with `argv` (without `node` and the script); resolves with the exit code.
 * `self` is how `save`'s kubeconfig runs this command again: this script by default; the plugin
 * executable, which runs it as its `kubeconfig` subcommand, passes its own.
 */
export async function run(argv: string[], io: Io = processIo, self: () => ExecCommand = thisScript): Promise<number> {
  let secrets: string[] = [];
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { endpoint: { type: "string" }, file: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
    const [command, clusterId, ...rest] = positionals;
    if (values.help || command === undefined) {
      io.out(USAGE);
      return values.help ? 0 : 2;
    }
    if (command !== "exec-credential" && command !== "save") throw new UsageError(`unknown command "${command}"`);
    if (!clusterId || rest.length > 0) throw new UsageError(`${command} takes one cluster id`);
    const connection = credentialConnection(values.endpoint, io.env);
    secrets = connection.tokens;
    const clientFor = (token: string) =>
      createClient({ endpoint: connection.endpoint, token, timeoutMs: 15_000, callTimeoutMs: 60_000, retries: 4 });
    const kubeconfig = await currentKubeconfig(clusterId, connection, clientFor);
    if (command === "exec-credential") {
      io.out(`${JSON.stringify(execCredential(credentialOf(kubeconfig, clusterId)))}\n`);
      return 0;
    }
    // `save`: the cluster's kubeconfig as the service sends it, its user running this installation.
    const text = execKubeconfig(kubeconfig, { clusterId, endpoint: connection.endpoint }, self());
    if (values.file) {
      // A fresh machine has no ~/.kube yet: made as kubectl makes it, private.
      mkdirSync(dirname(values.file), { recursive: true, mode: 0o700 });
      writeFileSync(values.file, text, { mode: 0o600 });
      io.err(`cms-kubeconfig: wrote ${values.file}: a kubeconfig for cluster ${clusterId} (kubectl --kubeconfig ${values.file} ...)\n`);
    } else io.out(text);
    return 0;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    io.err(`cms-kubeconfig: ${redact(message, secrets)}\n`);
    if (e instanceof UsageError) io.err(USAGE);
    return e instanceof UsageError ? 2 : 1;
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => process.exit(code));
}
