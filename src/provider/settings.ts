/**
 * The provider's settings: production uses the defaults; a tool embedding the provider (a
 * benchmark, a test) gives its own, to the process's runtime (`runtime.ts`) or to one provider
 * (`createClusterProvider`).
 */
import type { ClientOptions } from "../client/options";
import type { Clock } from "@pulumi-cms/contract";
import type { ProgressSink } from "./progress/sink";
import type { PollSchedule } from "./polling/schedule";

/** Settings a tool (or a test) may change; production uses the defaults. */
export interface ProviderSettings {
  /** Extra client options of the provider's clients (e.g. shorter retry delays). Never the endpoint or token. */
  clientOptions?: Omit<Partial<ClientOptions>, "endpoint" | "token" | "runtime">;
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
