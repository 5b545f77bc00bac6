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

/**
 * Where each module of the engine's protocol comes from, as @pulumi/pulumi's stubs
 * (`@pulumi/pulumi/proto/`) require it: relative names are stubs beside them. The bundled plugin
 * (`scripts/bundle.mjs`) bundles the same modules, resolved from the same place.
 * @internal
 */
export const PULUMI_GRPC_MODULES: Readonly<Record<keyof PulumiGrpc, string>> = Object.freeze({
  grpc: "@grpc/grpc-js",
  provider: "./provider_pb",
  providerService: "./provider_grpc_pb",
  engine: "./engine_pb",
  engineService: "./engine_grpc_pb",
  plugin: "./plugin_pb",
  struct: "google-protobuf/google/protobuf/struct_pb",
  empty: "google-protobuf/google/protobuf/empty_pb",
  any: "google-protobuf/google/protobuf/any_pb",
  status: "./status_pb",
});

let loaded: PulumiGrpc | undefined;

/**
 * The engine's protocol as a bundle carries it: the bundled plugin hands over the modules it
 * bundled before anything asks for them (a bundler cannot follow {@link pulumiGrpc}'s
 * `createRequire`).
 * @internal
 */
export function usePulumiGrpc(modules: PulumiGrpc): void {
  loaded = modules;
}

/** The engine's protocol (see the module comment). */
export function pulumiGrpc(): PulumiGrpc {
  if (loaded) return loaded;
  const fromStubs = createRequire(require.resolve("@pulumi/pulumi/proto/provider_grpc_pb"));
  const modules: Partial<PulumiGrpc> = {};
  for (const [name, specifier] of Object.entries(PULUMI_GRPC_MODULES)) modules[name as keyof PulumiGrpc] = fromStubs(specifier);
  loaded = modules as PulumiGrpc;
  return loaded;
}
