/**
 * The Cluster dynamic provider: what the Pulumi engine's Node dynamic-provider host calls for
 * `check`, `diff`, `create`, `read`, `update` and `delete`.
 *
 * This module is the implementation. It is never serialized: the object in `serializable.ts`
 * is, and it `require`s this module inside the host process, so the serialized text stays
 * small and contains no configuration and no token.
 */
import type * as pulumi from "@pulumi/pulumi";
import { createClient, type ClientOptions, type CmsClient } from "../client";
import type { ApiCluster, ApiClusterSummary } from "../client/types";
import { checkCluster } from "./check";
import {
  CONFIG_ENDPOINT_KEY,
  CONFIG_TOKEN_KEY,
  connectionFromPulumiConfigEnv,
  dropEmpty,
  resolveConnection,
  type Connection,
} from "./connection";
import { diffCluster } from "./diff";
import { ClusterInitError, isConflictError, isNotFoundError, safeMessage, statusOf } from "./errors";
import { chooseKubeconfig } from "./kubeconfig";
import { toCreateRequest, toInputsAfterRead, toOutputs, toUpdateRequest } from "./mapping";
import { progressSink } from "./progress";
import type { PollSchedule } from "./schedule";
import { resolveTimeouts } from "./timeouts";
import type { ClusterInputs, ClusterOutputs, ConnectionInputs } from "./types";
import { SYSTEM_CLOCK, WaitError, waitForCluster, type Clock } from "./waiter";

/** Settings a test (or an embedding tool) may change; production uses the defaults. */
export interface ProviderSettings {
  /** Extra client options (e.g. shorter retry delays in tests). Never the endpoint or token. */
  clientOptions?: Omit<Partial<ClientOptions>, "endpoint" | "token">;
  /** Time source of the waits (tests use a virtual clock shared with the emulator). */
  clock?: Clock;
  /** Poll schedule of the waits. */
  schedule?: PollSchedule;
  /** Environment to read `CMS_ENDPOINT` / `CMS_TOKEN` from; `process.env` by default. */
  env?: Record<string, string | undefined>;
}

let settings: ProviderSettings = {};
/** Connection settings from the stack configuration, stored by `configure` in the host process. */
let configured: ConnectionInputs = {};

/** Replace the {@link ProviderSettings}. Returns the previous ones so tests can restore them. */
export function setProviderSettings(next: ProviderSettings): ProviderSettings {
  const previous = settings;
  settings = next;
  return previous;
}

/** Forget what `configure` stored (tests). */
export function resetConfiguredConnection(): void {
  configured = {};
}

const clock = (): Clock => settings.clock ?? SYSTEM_CLOCK;

/** Resolve the connection for a resource and open a client. The token stays inside the client. */
function connect(explicit: ConnectionInputs | undefined): { client: CmsClient; connection: Connection } {
  const connection = resolveConnection({
    explicit: dropEmpty(explicit ?? {}),
    config: configured,
    env: settings.env ?? process.env,
  });
  const client = createClient({ ...settings.clientOptions, endpoint: connection.endpoint, token: connection.token });
  return { client, connection };
}

/**
 * The token to try when the connection stored in the state is refused: a stored explicit token
 * goes stale when it is rotated, because changing only `connection` is no change (no update
 * rewrites the outputs), while `refresh` and `destroy` only see the outputs. The stack config or
 * environment token, when set and different, is the current one. The endpoint is never swapped:
 * another service would answer 404 for the id, which would read as "deleted".
 */
function alternativeToken(explicit: ConnectionInputs | undefined, used: string): string | undefined {
  if (!dropEmpty(explicit ?? {}).token) return undefined;
  const env = settings.env ?? process.env;
  const candidate = [configured.token, env.CMS_TOKEN].find((t) => typeof t === "string" && t.trim() !== "");
  return candidate && candidate.trim() !== used ? candidate.trim() : undefined;
}

/**
 * Connect for an operation on an existing cluster (read, delete). When a stale stored token could
 * be the problem (see {@link alternativeToken}), probe once with GET and switch tokens on a 401.
 */
async function connectExisting(
  explicit: ConnectionInputs | undefined,
  id: string,
): Promise<{ client: CmsClient; connection: Connection }> {
  const primary = connect(explicit);
  const alternative = alternativeToken(explicit, primary.connection.token);
  if (!alternative) return primary;
  try {
    await primary.client.getCluster(id);
    return primary;
  } catch (e) {
    if (statusOf(e) !== 401) return primary; // the real call will report it
    const connection = { endpoint: primary.connection.endpoint, token: alternative };
    return { connection, client: createClient({ ...settings.clientOptions, ...connection }) };
  }
}

/** A progress callback for the resource's URN, or undefined when nobody is watching. */
function progressFor(urn: string | undefined): ((line: string) => void) | undefined {
  const sink = progressSink();
  if (!sink || !urn) return undefined;
  return (line) => sink.report(urn, line);
}

/** Attach the serialized provider, which the host does not add to init-error properties. */
function withProvider<T extends object>(outs: T, provider: unknown): T {
  return typeof provider === "string" ? { ...outs, __provider: provider } : outs;
}

/** Outputs for an init error, built defensively: reporting the failure must not fail. */
function partialOutputs(
  cluster: ApiCluster | ApiClusterSummary | undefined,
  inputs: Partial<ClusterInputs>,
  kubeconfig: string | undefined,
): Record<string, unknown> {
  try {
    if (cluster) return withProvider({ ...toOutputs(cluster, inputs, kubeconfig) }, inputs.__provider);
  } catch {
    // fall through to the minimal shape
  }
  const minimal: Record<string, unknown> = { status: "unknown" };
  for (const k of ["name", "controlPlanes", "workers", "nodeSize", "phase", "infraId", "connection", "__timeouts", "__urn", "__autonamed"]) {
    const v = (inputs as Record<string, unknown>)[k];
    if (v !== undefined) minimal[k] = v;
  }
  return withProvider(minimal, inputs.__provider);
}

/** Next steps for a cluster in `error`: diff replaces such a cluster on the next `up`. */
const ERROR_STATUS_HINT =
  "A cluster in status \"error\" cannot recover: it is kept in the stack and the next `pulumi up` will replace it (or `pulumi destroy` removes it).";

/** Text added to init errors: what the user can do next. */
function nextSteps(urnHint: string | undefined): string {
  const target = urnHint ? ` --target '${urnHint}'` : "";
  return `The cluster is kept in the stack: run \`pulumi up\` again to continue, or \`pulumi destroy${target}\` to remove it.`;
}

/**
 * The provider implementation, in the shape of `pulumi.dynamic.ResourceProvider`. Every method
 * resolves the connection itself (explicit inputs, then stack config, then environment).
 */
export const clusterProvider = {
  /**
   * Called once by the host after it deserializes the provider, with the stack's configuration.
   * Keeps `cms:endpoint` and `cms:token` for later calls in this process (the host process; the
   * serialized provider never holds them).
   */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    const fromConfig = dropEmpty({
      endpoint: req.config.get(CONFIG_ENDPOINT_KEY),
      token: req.config.get(CONFIG_TOKEN_KEY),
    });
    // Older hosts/engines may not hand the stack config to configure; the engine also passes the
    // config to plugin processes as PULUMI_CONFIG, so look there for whatever is still missing.
    const fromEnv = connectionFromPulumiConfigEnv((settings.env ?? process.env).PULUMI_CONFIG);
    configured = { ...fromEnv, ...fromConfig };
  },

  /** Validate inputs and fill defaults; see `check.ts`. Makes no API call. */
  async check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const { inputs, failures } = checkCluster(olds, news);
    // Importing compares the program with the existing cluster, so the name must be the user's.
    if (news.__import !== undefined && news.__import !== null && inputs.__autonamed === true) {
      failures.push({
        property: "name",
        reason: "name is required with the import option: set it to the existing cluster's name",
      });
    }
    return { inputs, failures };
  },

  /** Compare state with the program; see `diff.ts`. Makes no API call. */
  async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    return diffCluster(olds, news);
  },

  /**
   * POST the cluster (or adopt the one named by the `import` option), wait until it is running,
   * fetch its kubeconfig. Once the cluster exists, every failure is a {@link ClusterInitError}
   * carrying its id, so the engine records it instead of forgetting it.
   */
  async create(raw: Record<string, unknown>): Promise<pulumi.dynamic.CreateResult> {
    const inputs = raw as unknown as ClusterInputs;
    const { client, connection } = connect(inputs.connection);
    const secrets = [connection.token];
    const timeouts = resolveTimeouts(inputs.__timeouts);
    const startedAt = clock().now();
    const onProgress = progressFor(inputs.__urn);

    let first: ApiCluster | ApiClusterSummary;
    if (inputs.__import) {
      first = await adopt(client, inputs, secrets);
      onProgress?.(`importing ${first.id} (status ${first.status})`);
    } else {
      try {
        first = await client.createCluster(toCreateRequest(inputs));
      } catch (e) {
        // Nothing was created (the client reconciles lost replies before giving up).
        throw new Error(`creating cluster "${inputs.name}" failed: ${safeMessage(e, secrets)}`);
      }
      onProgress?.(`${first.status}: cluster ${first.id} accepted`);
    }
    const id = first.id;

    let last: ApiCluster | ApiClusterSummary = first;
    try {
      const running =
        first.status === "running" && "endpoint" in first
          ? (first as ApiCluster)
          : await waitForCluster({
              client,
              id,
              target: "running",
              timeoutMs: timeouts.createMs,
              startedAt,
              secrets,
              schedule: settings.schedule,
              clock: settings.clock,
              onProgress: onProgress && ((line) => onProgress(line)),
            });
      last = running as ApiCluster;
      const kubeconfig = await client.getKubeconfig(id);
      return { id, outs: toOutputs(last, inputs, kubeconfig) };
    } catch (e) {
      if (e instanceof WaitError && e.reason === "gone") {
        // Deleted behind our back: there is nothing left to keep in the stack.
        throw new Error(`${e.message}; nothing was kept in the stack`);
      }
      const seen = e instanceof WaitError && e.cluster ? e.cluster : last;
      const why = safeMessage(e, secrets);
      const hint = seen?.status === "error" ? ERROR_STATUS_HINT : nextSteps(inputs.__urn);
      // The message with its hint is also the init error the CLI shows (the host shows reasons).
      throw new ClusterInitError(`cluster ${id} was created but is not ready: ${why}. ${hint}`, id, partialOutputs(seen, inputs, undefined));
    }
  },

  /**
   * Refresh from the API. A 404 means the cluster is gone (empty result, as the SDK expects).
   * Returns `inputs` too, with the actual `workers`/`nodeSize`, so a refresh followed by `up`
   * puts back what the program says. Also serves `Cluster.get`, where the state is empty.
   */
  async read(id: string, raw?: Record<string, unknown>): Promise<pulumi.dynamic.ReadResult> {
    const props = (raw ?? {}) as unknown as Partial<ClusterOutputs>;
    const { client, connection } = await connectExisting(props.connection, id);
    const secrets = [connection.token];
    let cluster: ApiCluster;
    let fresh: string;
    try {
      cluster = await client.getCluster(id);
      fresh = await client.getKubeconfig(id);
    } catch (e) {
      if (isNotFoundError(e)) return {};
      throw new Error(`reading cluster ${id} failed: ${safeMessage(e, secrets)}`);
    }
    const kubeconfig = chooseKubeconfig(props.kubeconfig, fresh);
    return {
      id: cluster.id,
      props: toOutputs(cluster, props, kubeconfig),
      inputs: toInputsAfterRead(cluster, props),
    };
  },

  /**
   * One PATCH with just the changed fields; while the cluster is busy (409) wait for it to be
   * running and try again; then wait for running. Also the path the engine takes on the `up`
   * after a partial failure: with nothing to change it waits for the cluster, or reports clearly
   * that it is in `error`.
   */
  async update(id: string, oldsRaw: Record<string, unknown>, newsRaw: Record<string, unknown>) {
    const olds = oldsRaw as unknown as ClusterOutputs;
    const news = newsRaw as unknown as ClusterInputs;
    const { client, connection } = connect(news.connection);
    const secrets = [connection.token];
    const timeouts = resolveTimeouts(news.__timeouts);
    const startedAt = clock().now();
    const deadline = startedAt + timeouts.updateMs;
    const onProgress = progressFor(news.__urn);
    const patch = toUpdateRequest(olds, news);
    const wait = (target: "running") =>
      waitForCluster({
        client,
        id,
        target,
        timeoutMs: Math.max(0, deadline - startedAt),
        startedAt,
        secrets,
        schedule: settings.schedule,
        clock: settings.clock,
        onProgress: onProgress && ((line) => onProgress(line)),
      });

    let last: ApiCluster | undefined;
    try {
      if (Object.keys(patch).length > 0) {
        for (;;) {
          try {
            last = await client.updateCluster(id, patch);
            break;
          } catch (e) {
            if (!isConflictError(e)) throw e;
            // Busy (provisioning, scaling, upgrading...): wait for running, then send it again.
            onProgress?.("waiting for the cluster to finish its current operation");
            last = (await wait("running")) as ApiCluster;
          }
        }
        onProgress?.(`${last.status}: ${describePatch(patch)}`);
      } else {
        last = await client.getCluster(id);
      }
      if (last.status !== "running") last = (await wait("running")) as ApiCluster;
      // Scaling or resizing does not change the credentials: keep the kubeconfig already in
      // state (a refresh picks up a rotation). Fetch it only when state has none yet, e.g. on
      // the up after a create that failed before its kubeconfig was read.
      const kubeconfig = olds.kubeconfig ? olds.kubeconfig : await client.getKubeconfig(id);
      return { outs: toOutputs(last, news, kubeconfig) };
    } catch (e) {
      const why = safeMessage(e, secrets);
      if (isNotFoundError(e) || (e instanceof WaitError && e.reason === "gone")) {
        throw new Error(`cluster ${id} no longer exists (deleted outside Pulumi?): run \`pulumi refresh\`, then \`pulumi up\` to create it again`);
      }
      if (!last && !(e instanceof WaitError)) {
        // The PATCH itself was refused (validation, permission...): nothing changed.
        throw new Error(`updating cluster ${id} failed: ${why}`);
      }
      const seen = e instanceof WaitError && e.cluster ? e.cluster : last;
      const hint = seen?.status === "error" ? ` ${ERROR_STATUS_HINT}` : ` ${nextSteps(news.__urn)}`;
      throw new ClusterInitError(
        `cluster ${id} did not finish updating: ${why}.${hint}`,
        id,
        partialOutputs(seen, news, olds.kubeconfig),
      );
    }
  },

  /**
   * DELETE (404 counts as done; 409 while busy waits and tries again), then wait until the
   * cluster is gone (404).
   */
  async delete(id: string, raw: Record<string, unknown>): Promise<void> {
    const props = raw as unknown as Partial<ClusterOutputs>;
    const { client, connection } = await connectExisting(props.connection, id);
    const secrets = [connection.token];
    const timeouts = resolveTimeouts(props.__timeouts);
    const startedAt = clock().now();
    const deadline = startedAt + timeouts.deleteMs;
    const onProgress = progressFor(props.__urn);
    const waitOptions = {
      client,
      id,
      startedAt,
      timeoutMs: timeouts.deleteMs,
      secrets,
      schedule: settings.schedule,
      clock: settings.clock,
      onProgress: onProgress && ((line: string) => onProgress(line)),
    };

    for (;;) {
      try {
        await client.deleteCluster(id);
        break;
      } catch (e) {
        if (isNotFoundError(e)) return;
        if (!isConflictError(e) || clock().now() >= deadline) {
          throw new Error(`deleting cluster ${id} failed: ${safeMessage(e, secrets)}`);
        }
        // Busy with another operation: wait until it settles, then ask again.
        onProgress?.("waiting for the cluster to finish its current operation before deleting");
        try {
          await waitForCluster({ ...waitOptions, target: "running" });
        } catch (w) {
          if (w instanceof WaitError && w.reason === "gone") return;
          // "error" (DELETE is allowed then) or already "deleting": just try the DELETE again.
          if (!(w instanceof WaitError) || w.reason !== "failed") {
            throw new Error(`deleting cluster ${id} failed: ${safeMessage(w, secrets)}`);
          }
        }
      }
    }
    onProgress?.("deleting");
    try {
      await waitForCluster({ ...waitOptions, target: "gone", countNodes: false });
    } catch (e) {
      throw new Error(`deleting cluster ${id} failed: ${safeMessage(e, secrets)}`);
    }
  },
};

/** For `import`: fetch the cluster and insist that the program describes it. */
async function adopt(client: CmsClient, inputs: ClusterInputs, secrets: string[]): Promise<ApiCluster> {
  const id = String(inputs.__import);
  let cluster: ApiCluster;
  try {
    cluster = await client.getCluster(id);
  } catch (e) {
    if (isNotFoundError(e)) throw new Error(`cannot import cluster ${id}: it does not exist`);
    throw new Error(`cannot import cluster ${id}: ${safeMessage(e, secrets)}`);
  }
  const mismatches = importMismatches(cluster, inputs);
  if (mismatches.length > 0) {
    throw new Error(
      `cannot import cluster ${id}: the program's inputs do not match it (${mismatches.join("; ")}). ` +
        "Change the program to describe the cluster as it is, import it, then change it.",
    );
  }
  return cluster;
}

/**
 * Differences between an existing cluster and the program's inputs, one "property: program X,
 * cluster Y" entry each. `infraId` is compared only when the API reports it.
 */
export function importMismatches(cluster: ApiCluster, inputs: Partial<ClusterInputs>): string[] {
  const pairs: Array<[string, unknown, unknown]> = [
    ["name", inputs.name, cluster.name],
    ["controlPlanes", inputs.controlPlanes, cluster.control_planes],
    ["workers", inputs.workers, cluster.workers],
    ["nodeSize", inputs.nodeSize, cluster.node_size],
    ["phase", inputs.phase ?? "managed", cluster.phase],
  ];
  if (cluster.infra_id !== undefined) pairs.push(["infraId", inputs.infraId ?? null, cluster.infra_id ?? null]);
  return pairs
    .filter(([, program, actual]) => program !== actual)
    .map(([prop, program, actual]) => `${prop}: program ${JSON.stringify(program)}, cluster ${JSON.stringify(actual)}`);
}

function describePatch(patch: { workers?: number; node_size?: string }): string {
  const parts: string[] = [];
  if (patch.workers !== undefined) parts.push(`workers -> ${patch.workers}`);
  if (patch.node_size !== undefined) parts.push(`nodeSize -> ${patch.node_size}`);
  return parts.join(", ");
}
