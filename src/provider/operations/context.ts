/**
 * What every operation of one provider shares: the process's runtime (`../runtime.ts`), its
 * settings, its memory (the stack configuration and what check saw), its connections, and the
 * waits of an operation.
 */
import type { CmsClient } from "../../client";
import { isConflict } from "../../client/errors";
import type { Connection, ConnectionInputs } from "../../connection";
import type { ApiCluster, ApiClusterSummary, Clock } from "@pulumi-cms/contract";
import type { ProgressSink } from "../progress/sink";
import { type Runtime, settingsClock } from "../runtime";
import { type InStateMemory, StateMemory } from "../naming/adoption";
import { Connector } from "../connector";
import { forgetListings } from "../polling/listings";
import { toOutputs } from "../properties/mapping";
import { progressFor, progressSink } from "../progress/report";
import type { ProviderSettings } from "../settings";
import type { FirstRoundPolicy } from "../polling/shared-poll";
import { forgetReads } from "../polling/shared-reads";
import { resolveTimeouts } from "../properties/timeouts";
import { CLUSTER_INPUT_PROPERTIES, type ClusterInputs } from "../types";
import { sendStarting, waitForGone, waitForRunning } from "../polling/waiter";
import type { TimedRequest } from "./requests";

/** What a provider keeps between calls: the stack configuration and what check saw. */
export interface ProviderMemory {
  /** Connection settings from the stack configuration, stored by `configure`. */
  configured: ConnectionInputs;
  /** Name of the cluster in the state, by URN, as check saw it (see `provider/naming/adoption.ts`). */
  inState: Map<string, InStateMemory>;
}

/** A provider memory with nothing in it. */
export function emptyProviderMemory(): ProviderMemory {
  return { configured: {}, inState: new Map() };
}

/** One provider's state and services, handed to each operation. */
export class OperationContext {
  /** What check saw of the resources in the state (replacements, `--replace`; see `../naming/adoption.ts`). */
  readonly stateMemory: StateMemory;
  readonly connector: Connector;
  /** Aborted by {@link OperationContext.cancel}: every wait of this provider ends (see `WaitOptions.cancelled`). */
  private readonly cancellation = new AbortController();

  /**
   * @param runtime the process's, from the host's entry
   * @param memory where the provider keeps the stack configuration `configure` stores and what check saw
   * @param settings the provider's settings now (the runtime's, or the provider's own over them)
   */
  constructor(
    readonly runtime: Runtime,
    readonly memory: () => ProviderMemory,
    readonly settings: () => ProviderSettings,
    /** When the first polls of operations started together go: the host's, which knows its engine. */
    private readonly firstRound?: () => FirstRoundPolicy,
  ) {
    this.stateMemory = new StateMemory(() => memory().inState);
    this.connector = new Connector({ configured: () => memory().configured, settings, runtime });
  }

  /**
   * The engine's Cancel: every wait of this provider, running or to come, ends at once; the
   * requests already sent are answered first, so no cluster is created without its id reported.
   */
  cancel(): void {
    this.cancellation.abort();
  }

  /** True once {@link OperationContext.cancel} was called. */
  get cancelled(): boolean {
    return this.cancellation.signal.aborted;
  }

  /** The time source of the waits. */
  clock(): Clock {
    return settingsClock(this.settings());
  }

  /** Where progress lines go now, or undefined when nobody is watching. */
  sink(): ProgressSink | undefined {
    return progressSink(this.settings(), this.runtime.hostProgress);
  }

  /**
   * The waits of one operation: every option but the target is the operation's. They poll through
   * a client without the operation's deadline, since the shared poller keeps the first client it
   * is given for every later wait of the connection; each poll carries the deadline instead.
   */
  async waitsFor(op: {
    connection: Connection;
    timeoutMs: number;
    startedAt: number;
    secrets: string[];
    /** How messages name the operation's time limit: `create timeout`. */
    deadlineName: string;
    onProgress?: (line: string) => void;
  }) {
    const pollClient = await this.connector.open(op.connection, op.onProgress);
    const options = {
      ...op,
      ...this.waitSettings(pollClient),
      cancelled: this.cancellation.signal,
      onProgress: op.onProgress && ((line: string) => op.onProgress?.(line)),
    };
    return {
      /** Wait for `running`; `early` (default) right after this operation's own request, else the status was just seen. */
      running: (id: string, early = true) => waitForRunning({ ...options, id, early }),
      gone: (id: string) => waitForGone({ ...options, id }),
      /**
       * Send the request that starts the operation: the first polls of its wave wait for the answer,
       * and no listing or refresh page from before the answer serves a later read (`../polling/listings.ts`,
       * `../polling/shared-reads.ts`).
       */
      send: async <T>(request: () => Promise<T>): Promise<T> => {
        const { listings, readers } = this.runtime;
        forgetListings(listings, pollClient);
        try {
          return await sendStarting(this.waitSettings(pollClient), request);
        } finally {
          forgetListings(listings, pollClient);
          forgetReads(readers, pollClient);
        }
      },
    };
  }

  /**
   * Start a create or an update of the resource `request` names: its progress line, its client
   * (whose waits stop at the operation's timeout), and its waits.
   */
  async start(kind: "create" | "update", request: TimedRequest, connectionInputs: ConnectionInputs | undefined) {
    const onProgress = progressFor(this.sink(), request.urn);
    const timeoutMs = kind === "create" ? resolveTimeouts(request.timeouts).createMs : resolveTimeouts(request.timeouts).updateMs;
    const { client, connection } = await this.connector.connect(connectionInputs, onProgress, { ms: timeoutMs, name: `${kind} timeout` });
    const secrets = [connection.token];
    const startedAt = this.clock().now();
    const waits = await this.waitsFor({ connection, timeoutMs, startedAt, secrets, onProgress, deadlineName: `${kind} timeout` });
    return { onProgress, client, secrets, waits };
  }

  /** The settings of this provider's waits on `client`. */
  private waitSettings(client: CmsClient) {
    const settings = this.settings();
    return {
      client,
      schedule: settings.schedule,
      clock: this.clock(),
      pollers: this.runtime,
      sharedPolling: settings.sharedPolling,
      firstRound: this.firstRound?.(),
    };
  }
}

/** Outputs for an init error, built defensively: reporting the failure must not fail. */
export function partialOutputs(
  cluster: ApiCluster | ApiClusterSummary | undefined,
  inputs: Partial<ClusterInputs>,
  kubeconfig: string | undefined,
): Record<string, unknown> {
  try {
    if (cluster) return { ...toOutputs(cluster, inputs, kubeconfig) };
  } catch {
    // fall through to the minimal shape
  }
  const minimal: Record<string, unknown> = { status: "unknown" };
  for (const k of [...CLUSTER_INPUT_PROPERTIES, "connection", "__autonamed"]) {
    const v = (inputs as Record<string, unknown>)[k];
    if (v !== undefined) minimal[k] = v;
  }
  return minimal;
}

/**
 * Run `attempt`; while the service answers 409 (the cluster is busy with another operation),
 * call `whenBusy` with that error (it waits, or throws to give up) and try again.
 */
export async function retryWhileBusy<T>(attempt: () => Promise<T>, whenBusy: (e: unknown) => Promise<void>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (!isConflict(e)) throw e;
      await whenBusy(e);
    }
  }
}
