/**
 * gRPC and the engine's protocol, as @pulumi/pulumi ships them. Both hosts speak to the engine
 * with the very copies of `@grpc/grpc-js` and `google-protobuf` that @pulumi/pulumi's generated
 * stubs were built with: a second copy of either would not recognise the stubs' messages.
 * Loaded on first use: a program that never hosts a provider never loads gRPC.
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
