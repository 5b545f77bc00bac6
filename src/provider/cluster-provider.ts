/**
 * The Cluster dynamic provider: what the Pulumi engine's Node dynamic-provider host calls for
 * `check`, `diff`, `create`, `read`, `update` and `delete`.
 *
 * This module is the implementation (`createClusterProvider`, and the default instance
 * `clusterProvider`). It is never serialized: the object in `serializable.ts`
 * is, and it `require`s this module inside the host process, so the serialized text stays
 * small and contains no configuration and no token.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ClientOptions, CmsClient } from "../client";
import type { ApiCluster, ApiClusterSummary } from "../shared/wire-types";
import { checkCluster } from "./check";
import { adoptImported, findLeftover, nameProofOf, StateMemory } from "./adoption";
import {
  CONFIG_ENDPOINT_KEY,
  CONFIG_TOKEN_KEY,
  dropEmpty,
  resolveConnection,
  safeMessage,
  type Connection,
  type ConnectionInputs,
} from "../connection";
import { diffCluster } from "./diff";
import { isConflict, isNotFound, statusOf, UnprovenOwnershipError } from "../client/errors";
import { ClusterInitError, ClusterLookupError, OperationError } from "./errors";
import { startEngineWatchdog } from "./engine-watchdog";
import { withoutHostEchoes } from "./host-echo";
import { chooseKubeconfig } from "./kubeconfig";
import { toCreateRequest, toInputsAfterRead, toOutputs, toUpdateRequest } from "./mapping";
import { nextAutoNameGeneration } from "./naming";
import { containsUnknown } from "./unknown";
import { progressSink } from "./progress";
import { retryLine } from "./progress-line";
import { expectOperation, stopExpecting } from "./shared-poll";
import { forgetReads, readCluster } from "./shared-reads";
import { resolveTimeouts } from "./timeouts";
import { CLUSTER_INPUT_PROPERTIES, type ClusterInputs, type ClusterOutputs } from "./types";
import type { Clock } from "../shared/clock";
import { emptyProviderMemory, runtime, runtimeClock, type ProviderMemory, type RuntimeSettings } from "../shared/runtime";
import { sendStarting, WaitError, waitForGone, waitForRunning } from "./waiter";

/** An operation's time limit, passed to its client: `customTimeouts` or the default. */
interface OperationDeadline {
  ms: number;
  /** How messages name it, e.g. `create timeout`. */
  name: string;
}

/** A provider's settings: the runtime's (`shared/runtime.ts`), and for a provider of its own, those it was made with. */
export type ProviderSettings = RuntimeSettings;

// Inside the dynamic-provider host: exit when the engine that started us is gone (a killed job).
startEngineWatchdog();

/** What a refused token during refresh or destroy means, and the commands that work. */
const STALE_TOKEN_HINT =
  "If you rotated the token: `pulumi refresh` and `pulumi destroy` use the stack configuration recorded by the last `pulumi up`, " +
  "so run them with `--run-program` (which reads the current `cms:token`), or set `CMS_TOKEN` to the new token, or run `pulumi up` first.";

/** The message of a refresh or destroy failure, with the stale-token hint after a 401. */
function existingFailure(what: string, e: unknown, secrets: string[]): string {
  const hint = statusOf(e) === 401 ? ` ${STALE_TOKEN_HINT}` : "";
  return `${what}: ${safeMessage(e, secrets)}${hint}`;
}

/** A progress callback for the resource's URN, or undefined when nobody is watching. */
function progressFor(urn: string | undefined): ((line: string) => void) | undefined {
  const sink = progressSink();
  if (!sink || !urn) return undefined;
  return (line) => void sink.report(urn, line);
}

/** Wait for a message to reach the engine, for at most 5 s (a lost hint must not stall the operation). */
async function delivered(sending: void | Promise<void> | undefined): Promise<void> {
  if (!sending) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([sending, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
}

/**
 * The last progress line of an operation that succeeded: the CLI keeps showing a resource's last
 * line next to its final status, where an earlier one ("provisioning: 0/3 nodes ready") would be
 * stale.
 */
async function endProgress(urn: string | undefined, outcome: string): Promise<void> {
  if (urn) await delivered(progressSink()?.report(urn, outcome));
}

/** A warning in the CLI's diagnostics for `urn`, delivered before the operation returns. */
async function warnFor(urn: string, message: string): Promise<void> {
  await delivered(progressSink()?.warn?.(urn, message));
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
  for (const k of [...CLUSTER_INPUT_PROPERTIES, "connection", "__timeouts", "__urn", "__autonamed"]) {
    const v = (inputs as Record<string, unknown>)[k];
    if (v !== undefined) minimal[k] = v;
  }
  return withProvider(minimal, inputs.__provider);
}

/** Next steps for a cluster in `error`: diff replaces such a cluster on the next `up`. */
const ERROR_STATUS_HINT =
  'A cluster in status "error" cannot recover: it is kept in the stack and the next `pulumi up` will replace it (or `pulumi destroy` removes it).';

/** Text added to init errors: what the user can do next. */
function nextSteps(urnHint: string | undefined): string {
  const target = urnHint ? ` --target '${urnHint}'` : "";
  return `The cluster is kept in the stack: run \`pulumi up\` again to continue, or \`pulumi destroy${target}\` to remove it.`;
}

/**
 * Run `attempt`; while the service answers 409 (the cluster is busy with another operation),
 * call `whenBusy` with that error (it waits, or throws to give up) and try again.
 */
async function retryWhileBusy<T>(attempt: () => Promise<T>, whenBusy: (e: unknown) => Promise<void>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (!isConflict(e)) throw e;
      await whenBusy(e);
    }
  }
}

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
  /** The stack configuration `configure` stored in the host process, and what check saw. */
  const memory: ProviderMemory = own ? emptyProviderMemory() : runtime().defaultProvider;
  /** What check saw of the resources in the state (replacements, `--replace`; see adoption.ts). */
  const stateMemory = new StateMemory(memory.inState);
  const settingsNow = (): ProviderSettings => (own ? { ...runtime().settings, ...own } : runtime().settings);
  const clock = (): Clock => settingsNow().clock ?? runtimeClock();

  /**
   * The waits of one operation: every option but the target is the operation's. They poll through
   * a client without the operation's deadline, since the shared poller keeps the first client it
   * is given for every later wait of the connection; the waiter stops at the deadline itself.
   */
  async function waitsFor(op: {
    connection: Connection;
    timeoutMs: number;
    startedAt: number;
    secrets: string[];
    onProgress?: (line: string) => void;
  }) {
    const pollClient = await openClient(op.connection, op.onProgress);
    const options = {
      ...op,
      ...waitSettings(pollClient),
      onProgress: op.onProgress && ((line: string) => op.onProgress?.(line)),
    };
    return {
      /** Wait for `running`; `early` (default) right after this operation's own request, else the status was just seen. */
      running: (id: string, early = true) => waitForRunning({ ...options, id, early }),
      gone: (id: string) => waitForGone({ ...options, id }),
      /** Send the request that starts the operation: the first polls of its wave wait for the answer. */
      send: <T>(request: () => Promise<T>): Promise<T> => sendStarting(waitSettings(pollClient), request),
    };
  }

  /** The settings of this provider's waits on `client`. */
  function waitSettings(client: CmsClient) {
    const settings = settingsNow();
    return { client, schedule: settings.schedule, clock: clock(), sharedPolling: settings.sharedPolling };
  }

  /** The connection of a resource: its explicit one, then the stack configuration, then the environment. */
  function resolve(explicit: ConnectionInputs | undefined): Connection {
    return resolveConnection({ explicit: dropEmpty(explicit ?? {}), config: memory.configured, env: settingsNow().env ?? process.env });
  }

  /**
   * Resolve the connection for a resource and open a client. The token stays inside the client.
   * With `onProgress`, each retry the client waits for is shown (an unreachable endpoint, 5xx,
   * 429) with the time of the next attempt, instead of a progress line that stands still.
   */
  async function connect(
    explicit: ConnectionInputs | undefined,
    onProgress?: (line: string) => void,
    deadline?: OperationDeadline,
  ): Promise<{ client: CmsClient; connection: Connection }> {
    const connection = resolve(explicit);
    return { client: await openClient(connection, onProgress, deadline), connection };
  }

  /**
   * A client of `connection` whose retries are shown through `onProgress` (see {@link connect}).
   * With `deadline`, no wait of the client (Retry-After, the rate limit, back-off) passes it.
   */
  async function openClient(connection: Connection, onProgress?: (line: string) => void, deadline?: OperationDeadline): Promise<CmsClient> {
    const settings = settingsNow();
    const extra = settings.clientOptions?.onRetry;
    const onRetry: ClientOptions["onRetry"] =
      onProgress || extra
        ? (info) => {
            extra?.(info);
            onProgress?.(retryLine(info, connection.endpoint));
          }
        : undefined;
    // Loaded by the first operation that calls the API: a preview's check and diff never do.
    const { createClient } = await import("../client/index.js");
    return createClient({
      ...settings.clientOptions,
      ...(deadline ? { deadlineMs: deadline.ms, deadlineName: deadline.name } : {}),
      onRetry,
      endpoint: connection.endpoint,
      token: connection.token,
    });
  }

  /**
   * Tokens to try, in order, when the one in use is refused during `refresh` or `destroy`. Both run
   * with connection settings that can be out of date:
   * - a stored explicit token goes stale when it is rotated, because changing only `connection` is
   *   no change (no update rewrites the outputs), while `refresh` and `destroy` only see outputs;
   * - the engine configures the provider for `refresh` and `destroy` from the stack configuration
   *   recorded by the last `up`, so a token rotated with `pulumi config set` arrives only with the
   *   next `up` (or with `--run-program`).
   * Each source after the one in use (stack config, then `CMS_TOKEN`) that holds a different token
   * may be the current one. The endpoint is never swapped: another service would answer 404 for
   * the id, which would read as "deleted".
   */
  function alternativeTokens(explicit: ConnectionInputs | undefined, used: string): string[] {
    const env = settingsNow().env ?? process.env;
    const later = dropEmpty(explicit ?? {}).token ? [memory.configured.token, env.CMS_TOKEN] : [env.CMS_TOKEN];
    const out: string[] = [];
    for (const t of later) {
      const token = typeof t === "string" ? t.trim() : "";
      if (token !== "" && token !== used && !out.includes(token)) out.push(token);
    }
    return out;
  }

  /**
   * Connect for an operation on an existing cluster (read, delete). When the token in use is
   * refused (401), try the later sources' tokens (see {@link alternativeTokens}), probing each once
   * with `probe` (a GET by default; reads probe through the shared pages, so the probe costs
   * nothing extra); the first that is not refused is used.
   */
  async function connectExisting(
    explicit: ConnectionInputs | undefined,
    id: string,
    probe: (client: CmsClient) => Promise<unknown> = (client) => client.getCluster(id),
    onProgress?: (line: string) => void,
    deadline?: OperationDeadline,
  ): Promise<{ client: CmsClient; connection: Connection }> {
    const primary = await connect(explicit, onProgress, deadline);
    const alternatives = alternativeTokens(explicit, primary.connection.token);
    if (alternatives.length === 0) return primary;
    try {
      await probe(primary.client);
      return primary;
    } catch (e) {
      if (statusOf(e) !== 401) return primary; // the real call will report it
    }
    for (const token of alternatives) {
      const connection = { endpoint: primary.connection.endpoint, token };
      const candidate = { connection, client: await openClient(connection, onProgress, deadline) };
      try {
        await probe(candidate.client);
        return candidate;
      } catch (e) {
        if (statusOf(e) !== 401) return candidate;
      }
    }
    return primary;
  }

  /** The body of {@link clusterProvider.delete}. */
  async function removeCluster(id: string, raw: Record<string, unknown>): Promise<void> {
    const props = raw as unknown as Partial<ClusterOutputs>;
    const onProgress = progressFor(props.__urn);
    const timeouts = resolveTimeouts(props.__timeouts);
    const { client, connection } = await connectExisting(props.connection, id, undefined, onProgress, {
      ms: timeouts.deleteMs,
      name: "delete timeout",
    });
    const secrets = [connection.token];
    const startedAt = clock().now();
    const deadline = startedAt + timeouts.deleteMs;
    const waits = await waitsFor({ connection, startedAt, timeoutMs: timeouts.deleteMs, secrets, onProgress });

    /** Gone while waiting for it to settle: nothing left to delete. */
    let goneMeanwhile = false;
    try {
      await retryWhileBusy(
        () => waits.send(() => client.deleteCluster(id)),
        async (busy) => {
          if (clock().now() >= deadline) throw busy;
          // Busy with another operation: wait until it settles, then ask again.
          onProgress?.("waiting for the cluster to finish its current operation before deleting");
          try {
            await waits.running(id, false);
          } catch (w) {
            if (w instanceof WaitError && w.reason === "gone") {
              goneMeanwhile = true;
              throw w;
            }
            // "error" (DELETE is allowed then) or already "deleting": just try the DELETE again.
            if (!(w instanceof WaitError) || w.reason !== "failed") {
              throw new OperationError(`deleting cluster ${id} failed: ${safeMessage(w, secrets)}`);
            }
          }
        },
      );
      forgetReads(client);
    } catch (e) {
      if (goneMeanwhile || isNotFound(e)) return;
      if (e instanceof OperationError) throw e;
      throw new Error(existingFailure(`deleting cluster ${id} failed`, e, secrets));
    }
    onProgress?.("deleting");
    try {
      await waits.gone(id);
    } catch (e) {
      throw new Error(`deleting cluster ${id} failed: ${safeMessage(e, secrets)}`);
    }
    await endProgress(props.__urn, `deleted: cluster ${id} is gone`);
  }

  /**
   * The provider implementation, in the shape of `pulumi.dynamic.ResourceProvider`. Every method
   * resolves the connection itself (explicit inputs, then stack config, then environment).
   */
  const provider = {
    /**
     * Called once by the host after it deserializes the provider, with the stack's configuration.
     * Keeps `cms:endpoint` and `cms:token` for later calls in this process (the host process; the
     * serialized provider never holds them).
     */
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      memory.configured = dropEmpty({
        endpoint: req.config.get(CONFIG_ENDPOINT_KEY),
        token: req.config.get(CONFIG_TOKEN_KEY),
      });
    },

    /**
     * Validate inputs and fill defaults; see `check.ts`. Makes no API call.
     *
     * The engine calls it with the old inputs for a resource in the state, and once more without
     * them when it replaces the resource (only the call without them for `up --replace`). A
     * replacement is recognised from the first call (see `StateMemory`) or from the name the
     * program read from the state (`__inState`): it gets the next auto-name generation, and no call keeps
     * the `import` id, which the engine ignores once the resource is in the state (a replacement
     * must create a cluster, not adopt the one it replaces or has just deleted).
     */
    async check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
      const urn = typeof news.__urn === "string" ? news.__urn : undefined;
      const inState = olds !== undefined && olds !== null && Object.keys(olds).length > 0;
      if (inState && urn) stateMemory.remember(urn, olds);
      // Replaced: after a check with olds in this process, or (for `--replace`, which skips that
      // check) as the program read it from the state.
      const recorded = news.__inState as { name?: unknown } | undefined;
      const replaced = inState ? undefined : (stateMemory.previous(urn) ?? (recorded?.name ? { name: recorded.name } : undefined));
      const seed = typeof news.__seed === "string" ? news.__seed : undefined;
      const generation = replaced && urn ? nextAutoNameGeneration(urn, replaced.name, seed) : 0;
      const { inputs, failures } = checkCluster(olds, news, { generation });
      delete inputs.__inState;
      // Before any API call, in `preview` too: a pull request's preview fails as its merge's `up`
      // would when no endpoint or token is configured (unless the connection is computed later).
      if (!containsUnknown(news.connection)) {
        resolve(inputs.connection as ConnectionInputs | undefined);
      }
      // When this check leads to a create (no olds), the engine stores its inputs in a pending
      // operation first: the time lets `cms-recover` tell a cluster this create made from one that
      // carried the same name before (see src/recover).
      if (!inState) inputs.__requestedAt = new Date().toISOString();
      // In `up` an operation may follow (a create, or an update if diff finds changes): the first
      // polls of its wave wait for it (shared-poll.ts).
      if (failures.length === 0) expectOperation(urn);
      if (inState || replaced) {
        delete inputs.__import;
      } else if (news.__import !== undefined && news.__import !== null && inputs.__autonamed === true) {
        // Importing compares the program with the existing cluster, so the name must be the user's.
        failures.push({
          property: "name",
          reason: "name is required with the import option: set it to the existing cluster's name",
        });
      }
      return { inputs, failures };
    },

    /** Compare state with the program; see `diff.ts`. Makes no API call. */
    async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
      const result = diffCluster(olds, news);
      if (!result.changes) stopExpecting(news.__urn);
      return result;
    },

    /**
     * POST the cluster, wait until it is running, fetch its kubeconfig. Instead of POSTing, take
     * the cluster named by the `import` option, or the one an interrupted earlier run of this
     * resource created (see `adoption.ts`). Once the cluster exists, every failure is a
     * {@link ClusterInitError} carrying its id, so the engine records it instead of forgetting it.
     */
    async create(raw: Record<string, unknown>): Promise<pulumi.dynamic.CreateResult> {
      const inputs = raw as unknown as ClusterInputs;
      stopExpecting(inputs.__urn);
      const onProgress = progressFor(inputs.__urn);
      const timeouts = resolveTimeouts(inputs.__timeouts);
      const { client, connection } = await connect(inputs.connection, onProgress, { ms: timeouts.createMs, name: "create timeout" });
      const secrets = [connection.token];
      const startedAt = clock().now();
      const waits = await waitsFor({ connection, timeoutMs: timeouts.createMs, startedAt, secrets, onProgress });

      let first: ApiCluster | ApiClusterSummary | undefined;
      if (inputs.__import) {
        first = await adoptImported(client, inputs, secrets);
        onProgress?.(`importing ${first.id} (status ${first.status})`);
      } else {
        try {
          first = await findLeftover(client, inputs, stateMemory.previous(inputs.__urn)?.name, secrets);
        } catch (e) {
          if (e instanceof UnprovenOwnershipError) throw new Error(safeMessage(e, secrets));
          throw e;
        }
        if (first && inputs.__urn) {
          await warnFor(
            inputs.__urn,
            `cluster ${first.id} ("${first.name}", ${first.status}) carries this stack's own auto-name for the resource: an earlier run that was interrupted created it, and it is taken over instead of creating another`,
          );
        }
      }
      const adopted = first !== undefined;
      if (!first) {
        try {
          first = await waits.send(() => client.createCluster(toCreateRequest(inputs), { nameProof: nameProofOf(inputs) }));
        } catch (e) {
          // Nothing was taken: the client returns a cluster after a lost reply only with proof that
          // it is this create's, and otherwise names the candidates in the error.
          throw new Error(`creating cluster "${inputs.name}" failed: ${safeMessage(e, secrets)}`);
        }
        forgetReads(client);
        onProgress?.(`${first.status}: cluster ${first.id} accepted`);
      }
      const id = first.id;

      let last: ApiCluster | ApiClusterSummary = first;
      try {
        last = first.status === "running" && "endpoint" in first ? (first as ApiCluster) : await waits.running(id, !adopted); // a found cluster's status was just seen
        const kubeconfig = await client.getKubeconfig(id);
        await endProgress(inputs.__urn, `running: cluster ${id} ready`);
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
        throw new ClusterInitError(
          `cluster ${id} was created but is not ready: ${why}. ${hint}`,
          id,
          partialOutputs(seen, inputs, undefined),
        );
      }
    },

    /**
     * Refresh from the API. Returns `inputs` too, with the actual `workers`/`nodeSize`, so a
     * refresh followed by `up` puts back what the program says.
     *
     * A cluster that is gone (404), or being deleted although this stack did not delete it (the
     * stack's own deletes never read), leaves the stack: the result is empty, as the SDK expects,
     * and the next `up` creates a new one.
     *
     * Also serves `Cluster.get` (marked by `__get`), where the state holds no cluster yet: there, a
     * missing, hidden or deleting cluster fails the run naming the id, since an empty result would record a resource
     * without a kubeconfig and anything built on it would fall back to some other cluster.
     */
    async read(id: string, raw?: Record<string, unknown>): Promise<pulumi.dynamic.ReadResult> {
      const props = (raw ?? {}) as unknown as Partial<ClusterOutputs>;
      const getting = props.__get === true;
      // A read shows a line only while the client waits to retry; then its outcome replaces it.
      const shown = progressFor(props.__urn);
      let retried = false;
      const onProgress =
        shown &&
        ((line: string) => {
          retried = true;
          shown(line);
        });
      const { client, connection } = await connectExisting(props.connection, id, (c) => readCluster(c, id), onProgress);
      const secrets = [connection.token];
      let cluster: ApiCluster;
      let fresh: string;
      try {
        // From list pages shared by the reads of this pass (one GET when the pages cannot tell).
        cluster = await readCluster(client, id);
        if (cluster.status === "deleting") {
          if (getting) throw new ClusterLookupError(`Cluster.get: cluster ${id} is being deleted`, id);
          if (props.__urn) {
            await warnFor(
              props.__urn,
              `cluster ${id} is being deleted outside Pulumi: it leaves the stack, and the next \`pulumi up\` creates a new one`,
            );
          }
          return {};
        }
        fresh = await client.getKubeconfig(id);
      } catch (e) {
        if (getting) {
          if (isNotFound(e) || statusOf(e) === 403) {
            throw new ClusterLookupError(
              `Cluster.get: cluster ${id} does not exist or is not visible to the token in use (${safeMessage(e, secrets, "lookup")})`,
              id,
            );
          }
          if (e instanceof ClusterLookupError) throw e;
        } else if (isNotFound(e)) {
          return {};
        }
        throw new Error(existingFailure(`reading cluster ${id} failed`, e, secrets));
      }
      const kubeconfig = chooseKubeconfig(props.kubeconfig, fresh);
      if (retried) await endProgress(props.__urn, `read: cluster ${id} is ${cluster.status}`);
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
      stopExpecting(news.__urn);
      const onProgress = progressFor(news.__urn);
      const timeouts = resolveTimeouts(news.__timeouts);
      const { client, connection } = await connect(news.connection, onProgress, { ms: timeouts.updateMs, name: "update timeout" });
      const secrets = [connection.token];
      const startedAt = clock().now();
      const patch = toUpdateRequest(olds, news);
      const waits = await waitsFor({ connection, timeoutMs: timeouts.updateMs, startedAt, secrets, onProgress });

      let last: ApiCluster | undefined;
      try {
        if (Object.keys(patch).length > 0) {
          last = await retryWhileBusy(
            () => waits.send(() => client.updateCluster(id, patch)),
            async () => {
              // Busy (provisioning, scaling, upgrading...): wait for running, then send it again.
              onProgress?.("waiting for the cluster to finish its current operation");
              last = await waits.running(id, false);
            },
          );
          forgetReads(client);
          onProgress?.(`${last.status}: ${describePatch(patch)}`);
          if (last.status !== "running") last = await waits.running(id);
        } else {
          last = await client.getCluster(id);
          if (last.status !== "running") last = await waits.running(id, false);
        }
        // Scaling or resizing does not change the credentials: keep the kubeconfig already in
        // state (a refresh picks up a rotation). Fetch it only when state has none yet, e.g. on
        // the up after a create that failed before its kubeconfig was read.
        const kubeconfig = olds.kubeconfig ? olds.kubeconfig : await client.getKubeconfig(id);
        await endProgress(news.__urn, `running: ${describeCluster(last)}`);
        return { outs: toOutputs(last, news, kubeconfig) };
      } catch (e) {
        const why = safeMessage(e, secrets);
        if (isNotFound(e) || (e instanceof WaitError && e.reason === "gone")) {
          throw new Error(
            `cluster ${id} no longer exists (deleted outside Pulumi?): run \`pulumi refresh\`, then \`pulumi up\` to create it again`,
          );
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
      await removeCluster(id, raw);
    },
  };

  return withoutHostEchoes(provider);
}

/** The provider every stack's serialized provider loads (see `serializable.ts`). */
export const clusterProvider = createClusterProvider();

function describeCluster(c: ApiCluster): string {
  return `${c.workers} workers, nodeSize ${c.node_size}`;
}

function describePatch(patch: { workers?: number; node_size?: string }): string {
  const parts: string[] = [];
  if (patch.workers !== undefined) parts.push(`workers -> ${patch.workers}`);
  if (patch.node_size !== undefined) parts.push(`nodeSize -> ${patch.node_size}`);
  return parts.join(", ");
}
