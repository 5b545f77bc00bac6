/**
 * What lives as long as the process rather than one call, as the provider core sees it: the
 * clients' limiters and claimed ids, the shared pollers and readers and the listings in flight by
 * connection, the auto-name seeds drawn here, where the host sends progress lines, and the
 * settings a tool or a test gives. The dynamic-provider host runs every operation of a stack in
 * one process, and sharing across those operations (one rate limiter per token, one status poller
 * per connection, ...) is what keeps a stack of many clusters within the token's budget.
 *
 * The core keeps none of it itself: the host's entry makes the process's (`hosts/process.ts`, the
 * one place that keeps it per process) and hands it down, through the operation context
 * (`operations/context.ts`) and the client options; a test makes its own (`newHostRuntime`).
 */
import { type Clock, systemClock } from "@pulumi-cms/contract";
import type { ClientRuntime } from "../client/runtime";
import type { InFlightListings } from "./polling/listings";
import type { SharedPoller } from "./polling/shared-poll";
import type { SharedReader } from "./polling/shared-reads";
import type { ProgressSink } from "./progress/sink";
import type { ProviderSettings } from "./settings";

/** Where a host's progress lines go: `open` is called once, when a line is first to be shown. */
export interface HostProgress {
  open?: () => ProgressSink | null;
  /** null: looked, none. */
  sink?: ProgressSink | null;
}

/** The process's runtime, as the core uses it. */
export interface Runtime extends ClientRuntime {
  /** The provider's settings in this process: none in production; a tool or a test gives them. */
  settings: ProviderSettings;
  /** Shared status pollers by connection (`polling/shared-poll.ts`). */
  readonly pollers: Map<string, SharedPoller>;
  /** Shared readers of refresh passes by connection (`polling/shared-reads.ts`). */
  readonly readers: Map<string, SharedReader>;
  /** Listing requests in flight by connection (`polling/listings.ts`). */
  readonly listings: InFlightListings;
  /** Auto-name seeds drawn in this process (`naming/adoption.ts`). */
  readonly drawnSeeds: Set<string>;
  /** Where the host sends progress lines (`progress/report.ts`). */
  readonly hostProgress: HostProgress;
}

/** The time source of settings: their clock, else the wall clock. */
export function settingsClock(settings: ProviderSettings): Clock {
  return settings.clock ?? systemClock;
}
