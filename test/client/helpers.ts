/** Shared set-up of the client's tests against the real emulator (in-process, random port). */
import { inspect } from "node:util";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator";
import { clearSharedLimiters, createClient, type ClientOptions, type CmsClient, type RetryInfo } from "../../src/client";

export const FAST = { provisionSeconds: 0.2, scaleSeconds: 0.1, deleteSeconds: 0.1 } as const;

export async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  clearSharedLimiters();
  return startEmulator({ port: 0, ...FAST, ...options });
}

/** A client with small backoff bounds that records its retries. */
export function client(emu: RunningEmulator, over: Partial<ClientOptions> = {}): CmsClient & { retries: RetryInfo[] } {
  const retries: RetryInfo[] = [];
  const c = createClient({
    endpoint: emu.url,
    token: emu.token,
    minRetryDelayMs: 10,
    maxRetryDelayMs: 50,
    onRetry: (info) => retries.push(info),
    ...over,
  });
  return Object.assign(c, { retries });
}

/** Await a rejection and hand back the error (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Every way an error can end up in a log or across a process boundary. */
export function everyFace(e: unknown): string {
  const err = e as Error;
  return [
    err.message,
    err.stack ?? "",
    String(err),
    JSON.stringify(err),
    JSON.stringify(Object.entries(err)),
    JSON.stringify(err, Object.getOwnPropertyNames(err)),
    inspect(err, { depth: 10, showHidden: true }),
  ].join("\n");
}

/** Poll the emulator (not the client under test) until the cluster reaches `status`. */
export async function waitForStatus(emu: RunningEmulator, id: string, status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = (await emu.control.clusters()).find((x) => x.id === id);
    if (c?.status === status) return;
    if (Date.now() > deadline) throw new Error(`cluster ${id} did not reach ${status} (is ${c?.status})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const SMALL = { control_planes: 1, workers: 1, node_size: "small" } as const;
