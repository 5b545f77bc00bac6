/**
 * gRPC and the engine's protocol, as @pulumi/pulumi ships them. Both hosts speak to the engine
 * with the very copies of `@grpc/grpc-js` and `google-protobuf` that @pulumi/pulumi's generated
 * stubs were built with: a second copy of either would not recognise the stubs' messages.
 * Loaded on first use: a program that never hosts a provider never loads gRPC.
 *
 * Why the native plugin serves these stubs itself (`native/main.ts`, `native/handlers.ts`) rather
 * than through `@pulumi/pulumi/provider`'s `main(provider)`: that server (sdk/nodejs/provider/
 * server.ts, unchanged in this respect from 3.248 to 3.260) hands a provider object only the URN and
 * the properties of each call, and drops what this provider is built on:
 * - `checkConfig` and `diffConfig` answer UNIMPLEMENTED and `configure` ignores its arguments, so
 *   the stack's `cms:endpoint` and `cms:token` never reach the provider, the token cannot be kept
 *   secret in the provider's state nor refused when set without `--secret`, and the stack's
 *   auto-name seed (`__seed`) has nowhere to live;
 * - the operation's timeout (`customTimeouts`), the preview flag (it does not offer
 *   `supportsPreview`), `read`'s recorded inputs and `update`'s old inputs are not passed on;
 * - `diff` keeps only changes, replaces and delete-before-replace: no detailed diff, stables or
 *   changed keys for the CLI to show;
 * - `read` for `pulumi import` comes with no properties, and its `getProperties()!` throws;
 * - secret markers reach the provider as raw wrapper objects and what it returns is sent as is,
 *   after `configure` told the engine secrets are accepted: keeping each secret input secret
 *   (`native/properties.ts`) would be written against the wire form anyway;
 * - errors are sent with their raw message and printed with their stack to stderr (the
 *   engine's log), with nothing to keep a token or a secret input out of them.
 * What it does well (Cancel passed on, the init-failure detail for create and update) is a few
 * lines here. So the plugin takes the stubs and writes the service, one handler per call.
 */
import { createRequire } from "node:module";

// biome-ignore lint/suspicious/noExplicitAny: generated protobuf stubs without types we can name here
type Stubs = any;

/** The modules of the engine's protocol, loaded once. */
export interface PulumiGrpc {
  grpc: Stubs;
  provider: Stubs;
  providerService: Stubs;
  engine: Stubs;
  engineService: Stubs;
  plugin: Stubs;
  struct: Stubs;
  empty: Stubs;
  any: Stubs;
  status: Stubs;
}

let loaded: PulumiGrpc | undefined;

/** The engine's protocol (see the module comment). */
export function pulumiGrpc(): PulumiGrpc {
  if (loaded) return loaded;
  const stub = (name: string) => require.resolve(`@pulumi/pulumi/proto/${name}`);
  const fromPulumi = createRequire(stub("provider_grpc_pb"));
  loaded = {
    grpc: fromPulumi("@grpc/grpc-js"),
    provider: fromPulumi(stub("provider_pb")),
    providerService: fromPulumi(stub("provider_grpc_pb")),
    engine: fromPulumi(stub("engine_pb")),
    engineService: fromPulumi(stub("engine_grpc_pb")),
    plugin: fromPulumi(stub("plugin_pb")),
    struct: fromPulumi("google-protobuf/google/protobuf/struct_pb"),
    empty: fromPulumi("google-protobuf/google/protobuf/empty_pb"),
    any: fromPulumi("google-protobuf/google/protobuf/any_pb"),
    status: fromPulumi(stub("status_pb")),
  };
  return loaded;
}
