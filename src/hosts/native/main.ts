/**
 * `pulumi-resource-cms`: the native plugin. The engine starts it with its own address as the last
 * argument; it serves the provider protocol on a loopback port and prints that port as its first
 * line of stdout, as every resource plugin does. Progress lines go to the engine's log.
 *
 * The package ships this module bundled with everything it loads into one file,
 * `dist/plugin/bundle.js`, which the bin `dist/plugin/pulumi-resource-cms.js` loads
 * (`scripts/bundle.mjs`), behind the executable's command line (`plugin-command.ts`);
 * `node dist/hosts/native/main.js` runs the same plugin unbundled.
 */
import { safeMessage } from "../../connection";
import { offerHostProgress } from "../../provider/progress/report";
import { afterClientLoads } from "../../provider/connector";
import { saveCompileCache } from "../compile-cache";
import { engineAddressFromArgs } from "../engine-address";
import { connectToEngine } from "../engine-progress";
import { startEngineWatchdog } from "../engine-watchdog";
import { processRuntime } from "../process";
import { pulumiGrpc } from "../pulumi-grpc";
import { providerHandlers } from "./handlers";
import { grpcError } from "./responses";

/** Serve until the engine goes away. */
export async function serve(args: readonly string[]): Promise<void> {
  const { grpc, providerService } = pulumiGrpc();
  const address = engineAddressFromArgs(args);
  // The plugin's process runtime, made here and handed down.
  const runtime = processRuntime();
  offerHostProgress(runtime.hostProgress, () => connectToEngine(address));
  const { handlers, secrets } = providerHandlers(runtime);
  const implementation: Record<string, unknown> = {};
  for (const name of Object.keys(providerService.ResourceProviderService)) {
    const handler = handlers[name];
    implementation[name] = (call: { request: unknown }, callback: (err: unknown, value?: unknown, trailer?: unknown) => void) => {
      if (!handler) {
        callback({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented by pulumi-resource-cms` });
        return;
      }
      handler(call.request).then(
        (value) => callback(null, value),
        (e) => {
          const err = grpcError(e, secrets());
          callback(err, null, err.metadata);
        },
      );
    };
  }
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(providerService.ResourceProviderService, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) =>
      err ? reject(err) : resolve(p),
    ),
  );
  process.stdout.write(`${port}\n`);
  startEngineWatchdog(runtime.watchdog, address);
  // What the start compiled, then the client once the create that waited for it has gone on, are
  // saved for the next command's plugin (the bin turned the cache on).
  saveCompileCache();
  afterClientLoads(() => setImmediate(saveCompileCache));
}

/** The plugin's process: serve the engine that started it, or exit non-zero with why not. */
export function runPlugin(): void {
  serve(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`pulumi-resource-cms: ${safeMessage(e, [])}\n`);
    process.exit(1);
  });
}

if (require.main === module) runPlugin();
