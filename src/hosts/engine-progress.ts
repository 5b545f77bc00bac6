/**
 * Progress lines to the engine. A provider shows a status next to the resource in the CLI's
 * progress view by logging ephemeral INFO messages tied to the resource's URN. Both hosts are
 * started with the engine's gRPC address as an argument (the dynamic-provider host offers no log
 * of its own), so we open our own Engine client to it. Without an address there is no sink.
 */
import { holdingLines } from "../provider/progress/report";
import type { ProgressSink } from "../provider/progress/sink";
import { pulumiGrpc } from "./pulumi-grpc";

/** The engine's sink at `address`, or null without one (or when it cannot be reached). */
export function connectToEngine(address: string | undefined): ProgressSink | null {
  if (!address) return null;
  try {
    const { grpc, engine: engproto, engineService } = pulumiGrpc();
    // The channel is opened by the first line actually sent: most operations of a service that
    // answers at once send none (see holdingLines), and opening one costs the host a few ms of CPU
    // while the engine's other calls wait.
    let client: { log(req: unknown, done: () => void): void } | undefined;
    const engine = () => {
      if (!client) {
        const { EngineClient } = engineService;
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
