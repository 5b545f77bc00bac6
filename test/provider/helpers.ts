/** Shared set-up of the provider's tests against the real emulator (in-process, random port). */
import { startEmulator, ManualClock, type EmulatorOptions, type RunningEmulator } from "../../src/emulator";
import { clearSharedLimiters } from "../../src/client";
import { setProviderSettings, resetConfiguredConnection, type ProviderSettings } from "../../src/provider/cluster-provider";

/** Short operations so a wall-clock test waits about one poll (1 s). */
export const FAST = { provisionSeconds: 0.3, scaleSeconds: 0.2, deleteSeconds: 0.2 } as const;

/** Start an emulator; point the provider at it through the environment it reads. */
export async function emulatorForProvider(options: EmulatorOptions = {}, extra: Partial<ProviderSettings> = {}): Promise<RunningEmulator> {
  clearSharedLimiters();
  resetConfiguredConnection();
  const emu = await startEmulator({ port: 0, ...FAST, ...options });
  setProviderSettings({
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

/** Await a rejection and hand back the error (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

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
