/**
 * The package's runtime: the one owner of everything that lives as long as the process rather than
 * one call. The dynamic-provider host runs every operation of a stack in one process, and sharing
 * across those operations is what keeps a stack of many clusters within the token's budget: one
 * rate limiter per token, one status poller and one list reader per connection, one listing for
 * concurrent creates. The runtime also holds the time source of the waits and the settings tests
 * and embedding tools change, so that one {@link resetRuntime} starts a test from a clean process.
 *
 * It lives on `globalThis` under a registered symbol ({@link processSingleton}): a program and the
 * provider host can each `require` their own copy of the package into one process, and both copies
 * must draw from the same budgets. The key names the shape's version, so a later release with
 * another shape keeps its own.
 *
 * Only types are imported from the modules whose state it holds: loading the runtime loads no
 * HTTP client (a preview's check and diff never load it) and no Pulumi.
 */
import type { RateLimiter } from "../client/limiter";
import type { ClientOptions } from "../client/options";
import type { ConnectionInputs } from "../connection";
import type { ProgressSink } from "../provider/progress";
import type { PollSchedule } from "../provider/schedule";
import type { SharedPoller } from "../provider/shared-poll";
import type { SharedReader } from "../provider/shared-reads";
import { systemClock, type Clock } from "./clock";
import { drawnSeeds } from "./drawn-seeds";
import { processSingleton } from "./process-singleton";

/** Settings a test (or an embedding tool) may change; production uses the defaults. */
export interface RuntimeSettings {
  /** Extra client options of the provider's clients (e.g. shorter retry delays). Never the endpoint or token. */
  clientOptions?: Omit<Partial<ClientOptions>, "endpoint" | "token">;
  /**
   * Time source of the provider's waits, the shared poller and the shared reader (tests use a
   * virtual clock shared with the emulator). The wall clock by default.
   */
  clock?: Clock;
  /** Poll schedule of the waits. */
  schedule?: PollSchedule;
  /** Environment to read `CMS_ENDPOINT` / `CMS_TOKEN` from; `process.env` by default. */
  env?: Record<string, string | undefined>;
  /** Share status polls between clusters waited on together (on by default). */
  sharedPolling?: boolean;
  /** Where progress lines go instead of the engine (tests, tools); the engine's sink by default. */
  progressSink?: ProgressSink;
}

/** What a provider keeps between calls in the host: the stack configuration and what check saw. */
export interface ProviderMemory {
  /** Connection settings from the stack configuration, stored by `configure`. */
  configured: ConnectionInputs;
  /** Name of the cluster in the state, by URN, as check saw it (see `provider/adoption.ts`). */
  inState: Map<string, { name: unknown }>;
}

/** Everything process-wide; see the module comment. */
export interface Runtime {
  /** See {@link RuntimeSettings}; replaced whole by {@link useSettings}. */
  settings: RuntimeSettings;
  /** Rate limiters by endpoint + hashed token (`client/limiter.ts`). */
  readonly limiters: Map<string, RateLimiter>;
  /** Cluster ids this process's creates received (`client/reconcile.ts`). */
  readonly claimedIds: Set<string>;
  /** Status pollers by connection (`provider/shared-poll.ts`). */
  readonly pollers: Map<string, SharedPoller>;
  /** Operations the engine may still start, for the pollers' first rounds (`provider/shared-poll.ts`). */
  readonly expected: { urns: Set<string>; announcing: boolean };
  /** List readers of refresh passes by connection (`provider/shared-reads.ts`). */
  readonly readers: Map<string, SharedReader>;
  /** Listing requests in flight by connection, then by request (`provider/listings.ts`). */
  readonly listings: Map<string, Map<string, Promise<unknown>>>;
  /** The engine's progress sink (`provider/progress.ts`), once looked up (null: none). */
  readonly progress: { engine?: ProgressSink | null };
  /** Whether the engine watchdog runs (`provider/engine-watchdog.ts`). */
  readonly watchdog: { started: boolean };
  /** The host's `console.error` filter and the lines it drops (`provider/host-echo.ts`). */
  readonly hostEchoes: { installed: boolean; pending: Set<string> };
  /** The default provider's memory (`provider/cluster-provider.ts`). */
  readonly defaultProvider: ProviderMemory;
  /** The program's read of the stack's recorded outputs, by stack (`resources/state-record.ts`). */
  stackOutputs?: { stack: string; outputs: Promise<Record<string, unknown>> };
}

const RUNTIME_KEY = Symbol.for("pulumi-cms.runtime.v1");

/** A provider memory with nothing in it. */
export function emptyProviderMemory(): ProviderMemory {
  return { configured: {}, inState: new Map() };
}

/** The process's runtime, created on first use. */
export function runtime(): Runtime {
  return processSingleton<Runtime>(RUNTIME_KEY, () => ({
    settings: {},
    limiters: new Map(),
    claimedIds: new Set(),
    pollers: new Map(),
    expected: { urns: new Set(), announcing: false },
    readers: new Map(),
    listings: new Map(),
    progress: {},
    watchdog: { started: false },
    hostEchoes: { installed: false, pending: new Set() },
    defaultProvider: emptyProviderMemory(),
  }));
}

/** The time source of the provider's waits and shared polls and reads. */
export function runtimeClock(): Clock {
  return runtime().settings.clock ?? systemClock;
}

/**
 * Replace the settings. Pollers and readers run on the clock they were made with, so they are
 * dropped when the clock changes. Returns the previous settings, to put back.
 */
export function useSettings(next: RuntimeSettings): RuntimeSettings {
  const rt = runtime();
  const previous = rt.settings;
  rt.settings = next;
  if ((previous.clock ?? systemClock) !== (next.clock ?? systemClock)) {
    rt.pollers.clear();
    rt.readers.clear();
  }
  return previous;
}

/**
 * Start over, as a new process would (tests: a fresh emulator restarts its rate windows and its
 * clusters), with `settings`. What only the host sets up (the engine watchdog, the `console.error`
 * filter, the engine's progress sink) stays.
 */
export function resetRuntime(settings: RuntimeSettings = {}): void {
  const rt = runtime();
  rt.settings = settings;
  rt.limiters.clear();
  rt.claimedIds.clear();
  rt.pollers.clear();
  rt.expected.urns.clear();
  rt.expected.announcing = false;
  rt.readers.clear();
  rt.listings.clear();
  rt.hostEchoes.pending.clear();
  rt.defaultProvider.configured = {};
  rt.defaultProvider.inState.clear();
  rt.stackOutputs = undefined;
  // Under its own key, which the seed's serialized provider (stored in every stack's state) writes.
  drawnSeeds().clear();
}
