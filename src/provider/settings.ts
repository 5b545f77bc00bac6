/**
 * The provider's settings in this process: production uses the defaults; a tool embedding the
 * provider (a benchmark, a test) may replace them, or give a provider settings of its own
 * (`createClusterProvider`). A process slot, so every copy of the package in the process agrees.
 */
import type { ClientOptions } from "../client/options";
import { systemClock, type Clock } from "@pulumi-cms/contract";
import { processSlot } from "../shared/runtime/process-slot";
import type { ProgressSink } from "./progress/sink";
import type { PollSchedule } from "./polling/schedule";

/** Settings a tool (or a test) may change; production uses the defaults. */
export interface ProviderSettings {
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
  /** Where progress lines go instead of the host's (tests, tools); the host's by default. */
  progressSink?: ProgressSink;
}

const current = processSlot<{ settings: ProviderSettings }>("provider.settings.v1", () => ({ settings: {} }));

/** The process's settings now. */
export function processSettings(): ProviderSettings {
  return current().settings;
}

/** Replace the process's settings; returns the previous ones, to put back. */
export function replaceProcessSettings(next: ProviderSettings): ProviderSettings {
  const slot = current();
  const previous = slot.settings;
  slot.settings = next;
  return previous;
}

/** The time source of the provider's waits and shared polls and reads. */
export function processClock(): Clock {
  return processSettings().clock ?? systemClock;
}
