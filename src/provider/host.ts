/**
 * The Cluster provider as Pulumi's Node dynamic-provider host runs it: `check`, `diff`, `create`,
 * `read`, `update` and `delete` (one file each under `operations/`), bound to a provider's memory
 * and settings.
 *
 * Loading this module inside the host sets the host up: the engine watchdog (exit when the engine
 * that started us is gone) and the filter of the host's echoes of our errors (`host-echo.ts`).
 * Anywhere else (the program, tests) both do nothing.
 */
import type * as pulumi from "@pulumi/pulumi";
import { CONFIG_ENDPOINT_KEY, CONFIG_TOKEN_KEY, dropEmpty } from "../connection";
import { emptyProviderMemory, runtime, type RuntimeSettings } from "../shared/runtime";
import { startEngineWatchdog } from "./engine-watchdog";
import { withoutHostEchoes } from "./host-echo";
import { check } from "./operations/check";
import { OperationContext } from "./operations/context";
import { create } from "./operations/create";
import { deleteCluster } from "./operations/delete";
import { diff } from "./operations/diff";
import { read } from "./operations/read";
import { update } from "./operations/update";

startEngineWatchdog();

/** A provider's settings: the runtime's (`shared/runtime.ts`), and for a provider of its own, those it was made with. */
export type ProviderSettings = RuntimeSettings;

/** A Cluster provider with its own settings, stack configuration and memory of the state. */
export interface ClusterProvider extends Required<Omit<pulumi.dynamic.ResourceProvider, "configure">> {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
}

/**
 * A Cluster provider. The serialized provider of every stack uses the default one,
 * {@link clusterProvider}, which keeps its memory in the runtime and follows the runtime's
 * settings; tests and embedding tools may make their own, whose `own` settings win over the
 * runtime's and whose memory is their own.
 */
export function createClusterProvider(own?: ProviderSettings): ClusterProvider {
  const memory = own ? emptyProviderMemory() : runtime().defaultProvider;
  const ctx = new OperationContext(memory, () => (own ? { ...runtime().settings, ...own } : runtime().settings));
  return withoutHostEchoes({
    /**
     * Called once by the host after it deserializes the provider, with the stack's configuration.
     * Keeps `cms:endpoint` and `cms:token` for later calls in this process (the host process; the
     * serialized provider never holds them).
     */
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      memory.configured = dropEmpty({ endpoint: req.config.get(CONFIG_ENDPOINT_KEY), token: req.config.get(CONFIG_TOKEN_KEY) });
    },
    check: (olds, news) => check(ctx, olds, news),
    diff: (id, olds, news) => diff(id, olds, news),
    create: (inputs) => create(ctx, inputs),
    read: (id, props) => read(ctx, id, props),
    update: (id, olds, news) => update(ctx, id, olds, news),
    delete: (id, props) => deleteCluster(ctx, id, props),
  });
}

/** The provider every stack's serialized provider loads (see `serializable.ts`). */
export const clusterProvider = createClusterProvider();
