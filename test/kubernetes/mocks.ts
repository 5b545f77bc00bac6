/**
 * Pulumi's test mocks plus a record of every resource registration exactly as the engine would
 * receive it: the raw (serialized) inputs, in which a secret is the SDK's secret envelope, and
 * the provider reference and parent. `MockResourceArgs.inputs` unwraps secrets, so checking
 * "is this input a secret" needs the raw request.
 */
import * as pulumi from "@pulumi/pulumi";

/** The SDK's marker of a secret value in serialized properties. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const SIG_KEY = "4dabf18193072939515e22adb298388d";

/** One registration as sent to the (mock) resource monitor. */
export interface Registration {
  type: string;
  name: string;
  urn: string;
  id: string;
  parent: string;
  /** `urn::id` of the explicit provider, or "" for the default provider. */
  provider: string;
  /** Serialized inputs (secrets still wrapped). */
  raw: Record<string, any>;
  /** Inputs with secrets unwrapped (what `MockResourceArgs.inputs` holds). */
  inputs: Record<string, any>;
}

/** True when `v` is a serialized secret; its plain value is `v.value`. */
export function isSerializedSecret(v: unknown): v is { value: unknown } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/**
 * Install mocks whose `newResource` is `state`, and record every registration in the array
 * returned. Call before constructing resources.
 */
export async function recordRegistrations(
  state: (args: pulumi.runtime.MockResourceArgs) => { id?: string; state: Record<string, any> },
  project = "project",
  stack = "dev",
): Promise<Registration[]> {
  const log: Registration[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const r = state(args);
        return { id: r.id ?? `${args.name}-id`, state: r.state };
      },
      call: () => ({}),
    },
    project,
    stack,
    false,
  );
  const monitor = pulumi.runtime.getMonitor() as any;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, callback: (err: unknown, resp: any) => void) =>
    register(req, (err: unknown, resp: any) => {
      if (!err) {
        const raw = req.getObject().toJavaScript();
        log.push({
          type: req.getType(),
          name: req.getName(),
          urn: resp.getUrn(),
          id: resp.getId(),
          parent: req.getParent(),
          provider: req.getProvider(),
          raw,
          inputs: pulumi.runtime.deserializeProperties(req.getObject()),
        });
      }
      callback(err, resp);
    });
  return log;
}

/** Let pending registrations finish (each is a chain of promises). */
export async function flushRegistrations(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
}
