/** The provider processes' engine watchdog, with a real TCP listener standing in for the engine. */
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { engineReachable, startEngineWatchdog, WATCHDOG_FAILURES } from "../../src/hosts/engine-watchdog";

let server: Server | undefined;
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
  server?.close();
  server = undefined;
});

async function engine(): Promise<string> {
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return `127.0.0.1:${address.port}`;
}

/** Resolves with the exit code once the watchdog asks to exit. */
function watch(address: string, intervalMs: number): Promise<number> {
  return new Promise((resolve) => {
    stop = startEngineWatchdog(address, resolve, intervalMs);
  });
}

describe("engine watchdog", () => {
  it("sees a live engine as reachable and a closed port as gone", async () => {
    const address = await engine();
    expect(await engineReachable(address)).toBe(true);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    expect(await engineReachable(address)).toBe(false);
  });

  it(`exits the process after ${WATCHDOG_FAILURES} refused probes once the engine is gone`, async () => {
    const address = await engine();
    const exited = watch(address, 50);
    const probesWhileAlive = new Promise((r) => setTimeout(r, 300));
    let done = false;
    void exited.then(() => (done = true));
    await probesWhileAlive;
    expect(done).toBe(false); // alive engine: the host stays
    server!.close();
    server = undefined;
    expect(await exited).toBe(1);
  });

  it("does nothing outside a provider process (no engine address)", () => {
    expect(startEngineWatchdog(undefined, () => undefined, 10)).toBeUndefined();
  });
});
