/**
 * `Cluster`: a Kubernetes cluster of the Cluster Management Service, as a Pulumi resource.
 *
 * Implemented as a dynamic resource: the provider (`../provider`) runs inside Pulumi's Node
 * dynamic-provider host. Three things the host does not pass on are carried as hidden inputs,
 * all ignored by diff: the `customTimeouts` option (`__timeouts`), the resource's URN (`__urn`,
 * for progress lines and the auto-name) and the `import` option (`__import`, because the engine's
 * own import cannot load a dynamic provider; create adopts the cluster instead). A fourth,
 * `__inState`, tells check the name the state records (see `state-record.ts`); check consumes it.
 * Auto-named clusters also carry the stack's auto-name seed, `__seed` (see `autoname-seed.ts`).
 */
import * as pulumi from "@pulumi/pulumi";
import { CLUSTER_FIELDS, clusterArguments, clusterFieldsWhere, type Field } from "@pulumi-cms/contract";
import type { ClusterFieldArgs, ClusterFieldOutputs } from "../generated/cluster-resource-types";
import { timeoutStringsFrom } from "../provider/properties/timeouts";
import { refusePlainStackToken } from "../connection/stack-config";
import { serializedEntry } from "../hosts/dynamic/serialized-entry";
import { autoNameSeedFor } from "./autoname-seed";
import { stateRecordOf } from "./state-record";

import { CLUSTER_MODULE, CLUSTER_TYPE, CLUSTER_TYPE_NAME } from "./type-token";

/** Explicit connection for one resource; overrides stack config and environment. */
export interface ClusterConnectionArgs {
  /** Base URL of the service (without `/v1`). Default: `cms:endpoint` config, then `CMS_ENDPOINT`. */
  endpoint?: pulumi.Input<string>;
  /** API token; always stored as a secret. Default: `cms:token` config, then `CMS_TOKEN`. */
  token?: pulumi.Input<string>;
}

/** Arguments of a {@link Cluster}: those of the fields' declaration (generated), and the connection. */
export interface ClusterArgs extends ClusterFieldArgs {
  /** Explicit endpoint and token for this cluster. */
  connection?: ClusterConnectionArgs;
}

/** Extra arguments of {@link Cluster.get}. */
export interface ClusterGetArgs {
  /** Explicit endpoint and token to read the cluster with. */
  connection?: ClusterConnectionArgs;
}

// Every output must be a key of the props handed to the base class, or the SDK does not create
// the corresponding Output property on the instance: every output of the fields' declaration but
// the connection, which holds the token (the program has its own argument).
const OUTPUT_KEYS = clusterFieldsWhere((f) => f.output !== undefined && f.secret !== "token");
/** The outputs stored encrypted whole (the kubeconfig). */
const SECRET_OUTPUTS = clusterFieldsWhere((f) => f.output !== undefined && f.secret === true);
/** The arguments the constructor hands on as they are: all but the connection, which it wraps. */
const ARGUMENT_KEYS = clusterArguments((f) => f.type !== "object") as (keyof ClusterFieldArgs)[];

// The outputs, declared by the generated interface merged into the class: the base constructor sets
// them from the props (below), so the class declares no field of its own.
export interface Cluster extends ClusterFieldOutputs {}

/**
 * A cluster of the Cluster Management Service.
 *
 * ```ts
 * const cluster = new cms.Cluster("prod", { controlPlanes: 3, workers: 3, nodeSize: "large" });
 * export const kubeconfig = cluster.kubeconfig; // secret
 * ```
 *
 * The resource id is the cluster id (`cls_...`). `workers` and `nodeSize` change in place;
 * `name`, `controlPlanes`, `phase` and `infraId` replace the cluster. Honours the
 * `customTimeouts` option (defaults: create 30m, update 30m, delete 20m), `import`, and
 * {@link Cluster.get}.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged members are the outputs the base constructor sets.
export class Cluster extends pulumi.dynamic.Resource {
  /**
   * Adopt an existing cluster as a read-only resource: its state is read from the API by id.
   * The connection comes from `state.connection`, else stack config, else environment.
   */
  public static get(name: string, id: pulumi.Input<pulumi.ID>, state?: ClusterGetArgs, opts?: pulumi.CustomResourceOptions): Cluster {
    return new Cluster(name, { connection: state?.connection } as ClusterArgs, { ...opts, id });
  }

  /** True when `obj` is a Cluster (works across copies of this package). */
  public static isInstance(obj: unknown): obj is Cluster {
    return pulumi.CustomResource.isInstance(obj) && (obj as unknown as { __pulumiType?: string }).__pulumiType === CLUSTER_TYPE;
  }

  /**
   * @param name resource name (also the prefix of the default cluster name)
   * @param args cluster settings
   * @param opts resource options; `customTimeouts`, `import`, `additionalSecretOutputs`,
   *   `parent`... are honoured
   */
  constructor(name: string, args: ClusterArgs, opts?: pulumi.CustomResourceOptions) {
    // Before anything is registered: the engine would record a plain token in the state.
    refusePlainStackToken();
    const options: pulumi.CustomResourceOptions = { ...opts };
    const reading = options.id !== undefined;
    const importId = options.import;
    // The engine's import reads the resource without its `__provider`, which a dynamic provider
    // cannot survive; create adopts the cluster instead (see the provider's create).
    delete options.import;
    options.additionalSecretOutputs = [...new Set([...(opts?.additionalSecretOutputs ?? []), ...SECRET_OUTPUTS])];

    const props: Record<string, unknown> = {};
    for (const key of OUTPUT_KEYS) props[key] = undefined;
    if (!reading) {
      // A default the service takes written out (`phase`), as check records it: `refresh
      // --run-program` shows the engine's comparison of the program's arguments with the recorded inputs.
      for (const key of ARGUMENT_KEYS) {
        const fallback = (CLUSTER_FIELDS[key] as Field).default;
        props[key] = fallback === undefined ? args?.[key] : (args?.[key] ?? fallback);
      }
      props.__import = importId;
    }
    props.connection = connectionInput(args?.connection);
    props.__timeouts = timeoutStringsFrom(opts?.customTimeouts);
    props.__urn = pulumi.createUrn(name, CLUSTER_TYPE, opts?.parent);
    if (reading) props.__get = true;
    const inState = reading ? undefined : stateRecordOf(props.__urn as pulumi.Output<string>);
    if (inState) props.__inState = inState;
    // Auto-named: the stack's seed makes the name this stack's alone (provider/naming/auto-name.ts).
    if (!reading && args?.name === undefined && importId === undefined) {
      props.__seed = autoNameSeedFor(props.__urn as pulumi.Output<string>);
      // The recorded auto-name, for the engine's comparison of the arguments with the recorded
      // inputs (as `phase` above), marked so that check derives the name as without it.
      if (inState) {
        props.name = inState.apply((r) => (r?.autonamed ? r.name : undefined));
        props.__nameFromState = inState.apply((r) => (r?.autonamed ? true : undefined));
      }
    }

    // The SDK gives each property's Output a promise that records `new Error().stack` for its
    // leak report, and the language host maps every frame through source maps: about 0.3 ms a
    // stack, some 20 for each Cluster, all spent before the program sends its first registration.
    // No stacks while registering, then; an error thrown meanwhile gets its stack here instead.
    // (An error the engine returns later, such as a duplicate URN, comes without the program's
    // frames; its message names the resource's URN.)
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(serializedEntry(), name, props, options, CLUSTER_MODULE, CLUSTER_TYPE_NAME);
    } catch (e) {
      Error.stackTraceLimit = stackTraceLimit;
      if (e instanceof Error) Error.captureStackTrace(e);
      throw e;
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    // The engine stores it encrypted (additionalSecretOutputs); this also keeps the program's
    // Output secret whatever the engine hands back, e.g. under test mocks.
    (this as { kubeconfig: pulumi.Output<string> }).kubeconfig = pulumi.secret(this.kubeconfig);
    explicitConnections.set(this, args?.connection);
  }
}

/** Each Cluster's explicit `connection` argument, for `kubernetesProvider` (resources hold no such output). */
const explicitConnections = new WeakMap<object, ClusterConnectionArgs | undefined>();

/**
 * The explicit `connection` a Cluster of this copy of the package was given, else undefined.
 * @internal
 */
export function explicitConnectionOf(cluster: object): ClusterConnectionArgs | undefined {
  return explicitConnections.get(cluster);
}

/**
 * The connection input, with the token wrapped as a secret so state and logs only hold its
 * ciphertext. The state keeps the object with only that member encrypted: the endpoint is
 * stored plain unless the program gives it as a secret.
 */
function connectionInput(c: ClusterConnectionArgs | undefined): pulumi.Input<Record<string, unknown>> | undefined {
  if (!c) return undefined;
  const out: Record<string, unknown> = {};
  if (c.endpoint !== undefined) out.endpoint = c.endpoint;
  if (c.token !== undefined) out.token = pulumi.secret(c.token);
  return Object.keys(out).length > 0 ? out : undefined;
}
