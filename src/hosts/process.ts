/**
 * The process's runtime (`provider/runtime.ts`): one per process, made by the hosts' entries
 * (`dynamic/provider.ts`, `native/main.ts`) and the program's (`resources/program-runtime.ts`,
 * `functions/`), and handed down from there. This is the one place that keeps it per process.
 *
 * A program and the provider host can each `require` their own copy of the package into one
 * process (two releases even), and both copies must draw from the same budgets: so each part
 * lives in one map on `globalThis` ({@link processSingleton}), under a name its owner gives it.
 * A name carries the version of its part's shape, so a later release with another shape keeps its
 * own while the parts whose shape it keeps are shared (earlier releases keep theirs under the
 * same names). The map knows nothing of what it holds.
 *
 * It loads nothing but types: a program that declares clusters asks for the runtime without
 * loading the client.
 */
import { processSingleton } from "@pulumi-cms/contract";
import type { RateLimiter } from "../client/limiter";
import type { ProviderMemory } from "../provider/operations/context";
import type { InFlightListings } from "../provider/polling/listings";
import type { SharedPoller } from "../provider/polling/shared-poll";
import type { SharedReader } from "../provider/polling/shared-reads";
import type { HostProgress, Runtime } from "../provider/runtime";
import type { ProviderSettings } from "../provider/settings";
import type { EngineWaves, ExpectedOperations } from "./engine-waves";

/** `Symbol.for` key of the map of every part (a fresh process has none). */
const PROCESS_PARTS_KEY = "pulumi-cms.process-slots.v1";

/**
 * Auto-name seeds drawn in this process, under a key of their own: the seed's serialized provider
 * (stored in every stack's state: `resources/autoname-seed.ts`) writes it by this text.
 */
export const DRAWN_SEEDS_KEY = "pulumi-cms.autoname-seeds-drawn-here";

/** The part `name` of the process, made by `init` on first use. */
export function processPart<T>(name: string, init: () => T): T {
  const parts = processSingleton(Symbol.for(PROCESS_PARTS_KEY), () => new Map<string, unknown>());
  if (!parts.has(name)) parts.set(name, init());
  return parts.get(name) as T;
}

/** A host's echo filter of its stderr (`dynamic/host-echo.ts`): installed once, and the lines it is to drop. */
export interface HostEchoes {
  installed: boolean;
  pending: Set<string>;
}

/** The runtime of a provider host: the core's, and what the hosts keep per process. */
export interface HostRuntime extends Runtime {
  /** Whether an engine watchdog runs (`engine-watchdog.ts`). */
  readonly watchdog: { started: boolean };
  /** The dynamic host's echo filter. */
  readonly echoes: HostEchoes;
  /** The dynamic host's default provider's memory (`dynamic/provider.ts`). */
  readonly defaultMemory: ProviderMemory;
  /** What the dynamic host's engine has announced and not started (`engine-waves.ts`). */
  readonly expected: ExpectedOperations;
  /** The dynamic host's waves over {@link HostRuntime.expected}, made by the host on first use. */
  waves?: EngineWaves;
}

/** The parts of a host runtime, each made by `part(name, init)`. */
function hostRuntime(part: <T>(name: string, init: () => T) => T, drawnSeeds: Set<string>, settings: ProviderSettings): HostRuntime {
  return {
    settings,
    limiters: part("client.rate-limiters.v1", () => new Map<string, RateLimiter>()),
    claimedIds: part("client.claimed-cluster-ids.v1", () => new Set<string>()),
    pollers: part("provider.shared-pollers.v1", () => new Map<string, SharedPoller>()),
    readers: part("provider.shared-readers.v1", () => new Map<string, SharedReader>()),
    listings: part("provider.listings-in-flight.v1", (): InFlightListings => new Map()),
    drawnSeeds,
    hostProgress: part("provider.host-progress.v1", (): HostProgress => ({})),
    watchdog: part("provider-host.engine-watchdog.v1", () => ({ started: false })),
    echoes: part("dynamic-host.echoes.v1", (): HostEchoes => ({ installed: false, pending: new Set() })),
    defaultMemory: part("dynamic-host.default-provider-memory.v1", (): ProviderMemory => ({ configured: {}, inState: new Map() })),
    expected: part("dynamic-host.expected-operations.v1", (): ExpectedOperations => ({ urns: new Set(), announcing: false })),
  };
}

/** The runtime of this process: one, whichever copy of the package asks. */
export function processRuntime(): HostRuntime {
  return processPart("host-runtime.v1", () =>
    hostRuntime(
      processPart,
      processSingleton(Symbol.for(DRAWN_SEEDS_KEY), () => new Set<string>()),
      {},
    ),
  );
}

/** A runtime of its own with nothing in it, for a test or a tool. */
export function newHostRuntime(settings: ProviderSettings = {}): HostRuntime {
  return hostRuntime((_name, init) => init(), new Set(), settings);
}
