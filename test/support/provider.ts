/** Shared set-up of the provider's tests against the real emulator (in-process, random port). */
import { startEmulator, ManualClock, type EmulatorOptions, type RunningEmulator } from "../../packages/emulator/src";
import { FAST_TIMINGS } from "./emulator";
import { type ClusterProvider, createClusterProvider } from "../../src/hosts/dynamic/cluster-provider";
import type { ProgressSink } from "../../src/provider/progress/sink";
import type { ProviderSettings } from "../../src/provider/settings";
import { type HostRuntime, newHostRuntime } from "../../src/hosts/process";

let runtime = newHostRuntime();
let provider = createClusterProvider(undefined, runtime);

/**
 * A fresh runtime for the tests that follow, as a new provider host's process has (no limiter,
 * poller, reader, listing, seed or configuration left from earlier tests), with `settings`; and
 * {@link clusterProvider} on it.
 */
export function freshRuntime(settings: ProviderSettings = {}): HostRuntime {
  runtime = newHostRuntime(settings);
  provider = createClusterProvider(undefined, runtime);
  return runtime;
}

/** The runtime of the tests now (see {@link freshRuntime}). */
export function testRuntime(): HostRuntime {
  return runtime;
}

/** The default provider, as a stack's serialized provider uses it, on the tests' runtime now. */
export const clusterProvider: ClusterProvider = {
  configure: (req) => provider.configure(req),
  check: (olds, news) => provider.check(olds, news),
  diff: (id, olds, news) => provider.diff(id, olds, news),
  create: (inputs) => provider.create(inputs),
  read: (id, props) => provider.read(id, props),
  update: (id, olds, news) => provider.update(id, olds, news),
  delete: (id, props) => provider.delete(id, props),
};

/**
 * Start an emulator in a fresh runtime (see {@link freshRuntime}); point the provider at it
 * through the environment it reads.
 */
export async function emulatorForProvider(options: EmulatorOptions = {}, extra: Partial<ProviderSettings> = {}): Promise<RunningEmulator> {
  const emu = await startEmulator({ port: 0, ...FAST_TIMINGS, ...options });
  freshRuntime({
    env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token },
    clientOptions: { minRetryDelayMs: 10, maxRetryDelayMs: 100, settleWindowMs: 200 },
    ...extra,
  });
  return emu;
}

/**
 * A virtual clock shared by the emulator and the provider's waiter: sleeping advances it, so a
 * 10-minute provisioning takes no real time and every poll is still a real HTTP call.
 */
export function virtualTime(): { emulatorClock: ManualClock; clock: ManualClock } {
  const clock = new ManualClock(Date.now());
  return { emulatorClock: clock, clock };
}

/** Send progress lines to `sink` instead of the engine; undefined goes back to the engine's. */
export function showProgress(sink: ProgressSink | undefined): void {
  runtime.settings = { ...runtime.settings, progressSink: sink };
}

/** Forget the stack configuration the default provider was given (`configure`), as the engine's next host would. */
export async function forgetStackConfig(): Promise<void> {
  await clusterProvider.configure({ config: { get: () => undefined, require: (k: string) => k } });
}

export { rejection } from "./rejection";

/** Inputs as check would produce them, for calling create/update directly. */
export function inputs(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "test-cluster",
    controlPlanes: 1,
    workers: 2,
    nodeSize: "small",
    phase: "managed",
    __urn: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::test",
    __provider: "exports.handler = function() {}",
    ...over,
  };
}

/** Create a cluster through the default provider; hands back its inputs and its state as stored. */
export async function created(name: string, over: Record<string, unknown> = {}) {
  const news = inputs({ name, ...over });
  const res = await clusterProvider.create(news);
  return { id: res.id, news, outs: { ...res.outs, __provider: news.__provider } as Record<string, unknown> };
}
