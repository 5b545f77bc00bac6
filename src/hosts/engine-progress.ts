/**
 * Progress lines to the engine. Native providers show a status next to the resource in the CLI's
 * progress view by logging ephemeral INFO messages tied to the resource's URN; the dynamic-provider
 * host does not offer that, but it is started with the engine's gRPC address as its first
 * argument, so we open our own Engine client to it. Outside that host there is no sink.
 */
import { createRequire } from "node:module";
import { holdingLines } from "../../provider/progress";
import type { ProgressSink } from "../../provider/progress-sink";
import { engineAddressFromHost } from "./host-process";

/** The engine's sink, or null outside the dynamic-provider host (or when it cannot be reached). */
export function connectToEngine(): ProgressSink | null {
  const address = engineAddressFromHost();
  if (!address) return null;
  try {
    // Load gRPC through @pulumi/pulumi so we use the very copy its generated stubs were built with.
    const engineGrpcPath = require.resolve("@pulumi/pulumi/proto/engine_grpc_pb");
    const fromPulumi = createRequire(engineGrpcPath);
    const engproto = fromPulumi(require.resolve("@pulumi/pulumi/proto/engine_pb"));
    // The channel is opened by the first line actually sent: most operations of a service that
    // answers at once send none (see holdingLines), and opening one costs the host a few ms of CPU
    // while the engine's other calls wait.
    let client: { log(req: unknown, done: () => void): void } | undefined;
    const engine = () => {
      if (!client) {
        const grpc = fromPulumi("@grpc/grpc-js");
        const { EngineClient } = fromPulumi(engineGrpcPath);
        client = new EngineClient(address, grpc.credentials.createInsecure()) as NonNullable<typeof client>;
      }
      return client;
    };
    // The last delivery of each resource: its lines are sent one after the other so they arrive in
    // order, while other resources' lines go meanwhile (an operation that ends waits for its own
    // last line, not for every line of the other operations running beside it). A failed delivery
    // is only a lost hint.
    const last = new Map<string, Promise<void>>();
    const send = (urn: string, message: string, severity: number, ephemeral: boolean): Promise<void> => {
      const delivered = (last.get(urn) ?? Promise.resolve()).then(
        () =>
          new Promise<void>((resolve) => {
            try {
              const req = new engproto.LogRequest();
              req.setSeverity(severity);
              req.setMessage(message);
              req.setUrn(urn);
              req.setEphemeral(ephemeral);
              engine().log(req, () => resolve());
            } catch {
              resolve();
            }
          }),
      );
      last.set(urn, delivered);
      void delivered.then(() => {
        if (last.get(urn) === delivered) last.delete(urn);
      });
      return delivered;
    };
    return {
      ...holdingLines((urn, message) => send(urn, message, engproto.LogSeverity.INFO, true)),
      warn: (urn, message) => send(urn, message, engproto.LogSeverity.WARNING, false),
    };
  } catch {
    return null;
  }
}
