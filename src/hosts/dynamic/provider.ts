/**
 * The Cluster provider as Pulumi's Node dynamic-provider host runs it: the core's `check`, `diff`,
 * `create`, `read`, `update` and `delete` (one file each under `provider/operations/`), bound to a
 * provider's memory and settings in the shape of `pulumi.dynamic.ResourceProvider`, each call's
 * property bags turned into the core's request and back (`requests.ts`).
 *
 * Loading this module inside the host sets the host up: the engine watchdog (exit when the engine
 * that started us is gone), the filter of the host's echoes of our errors (`host-echo.ts`), the
 * engine as the place progress lines go (`../engine-progress.ts`) and the saving of the compile
 * cache once the client is loaded (`compile-cache.ts`). Anywhere else (the program, tests) each
 * does nothing.
 */
import type * as pulumi from "@pulumi/pulumi";
import { CONFIG_ENDPOINT_KEY, CONFIG_TOKEN_KEY, dropEmpty } from "../../connection";
import { afterClientLoads } from "../../provider/connector";
import { check } from "../../provider/operations/check";
import { emptyProviderMemory, OperationContext } from "../../provider/operations/context";
import { create } from "../../provider/operations/create";
import { deleteCluster } from "../../provider/operations/delete";
import { diff } from "../../provider/operations/diff";
import { read } from "../../provider/operations/read";
import { update } from "../../provider/operations/update";
import { offerHostProgress } from "../../provider/progress/report";
import type { ProviderSettings } from "../../provider/settings";
import { saveCompileCache } from "../compile-cache";
import { connectToEngine } from "../engine-progress";
import { startEngineWatchdog } from "../engine-watchdog";
import { type HostRuntime, processRuntime } from "../process";
import { engineAddressFromHost } from "./host-process";
import { withoutHostEchoes } from "./host-echo";
import { deleteRequest, diffRequest, dynamicCheck, dynamicCreate, dynamicRead, dynamicUpdate } from "./requests";
import { dynamicWaves } from "./waves";

/** The runtime of the host's process: made here, the host's entry, and handed to every provider. */
const runtime = processRuntime();
startEngineWatchdog(runtime.watchdog, engineAddressFromHost());
offerHostProgress(runtime.hostProgress, () => connectToEngine(engineAddressFromHost()));
// The client is most of what a host loads: its compiled code is saved for the next command's host
// once the operation that waited for it has gone on.
afterClientLoads(() => setImmediate(saveCompileCache));

export type { ProviderSettings };

/** A Cluster provider with its own settings, stack configuration and memory of the state. */
export interface ClusterProvider extends Required<Omit<pulumi.dynamic.ResourceProvider, "configure">> {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
}

/**
 * A Cluster provider on `on`, the process's runtime unless a test or a tool gives one of its own.
 * The serialized provider of every stack uses the default one, {@link clusterProvider}, whose
 * memory is the runtime's (every copy of the package in the process shares it) and which follows
 * the runtime's settings; a provider given `own` settings has them over the runtime's, and a
 * memory of its own.
 */
export function createClusterProvider(own?: ProviderSettings, on: HostRuntime = runtime): ClusterProvider {
  const memory = own ? emptyProviderMemory() : on.defaultMemory;
  const ctx = new OperationContext(
    on,
    () => memory,
    () => (own ? { ...on.settings, ...own } : on.settings),
    () => dynamicWaves(on),
  );
  // What the engine's calls say of the operations to come, for the waves of first polls.
  const waves = () => dynamicWaves(on);
  return withoutHostEchoes(on.echoes, {
    /**
     * Called once by the host after it deserializes the provider, with the stack's configuration.
     * Keeps `cms:endpoint` and `cms:token` for later calls in this process (the host process; the
     * serialized provider never holds them).
     */
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      memory.configured = dropEmpty({ endpoint: req.config.get(CONFIG_ENDPOINT_KEY), token: req.config.get(CONFIG_TOKEN_KEY) });
    },
    check: (olds, news) =>
      dynamicCheck(olds, news, async (request) => {
        const result = await check(ctx, request);
        if (result.failures.length === 0) waves().checked(request.urn);
        return result;
      }),
    diff: async (id, olds, news) => {
      const request = diffRequest(id, olds, news);
      const result = await diff(request);
      if (!result.changes) waves().settled(request.urn);
      return result;
    },
    create: (inputs) =>
      dynamicCreate(inputs, (request) => {
        waves().settled(request.urn);
        return create(ctx, request);
      }),
    read: (id, props) => dynamicRead(id, props, (request) => read(ctx, request)),
    update: (id, olds, news) =>
      dynamicUpdate(id, olds, news, (request) => {
        waves().settled(request.urn);
        return update(ctx, request);
      }),
    delete: (id, props) => deleteCluster(ctx, deleteRequest(id, props)),
  });
}

/** The provider every stack's serialized provider loads (see `serializable.ts`). */
export const clusterProvider = createClusterProvider();
