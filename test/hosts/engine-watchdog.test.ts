/**
 * The provider processes' engine watchdog, with a real TCP listener standing in for the engine's
 * port, and real processes for the engine and the provider it starts through a shell.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { engineReachable, startEngineWatchdog, WATCHDOG_FAILURES } from "../../src/hosts/engine-watchdog";
import { alive, eventually, REPO_ROOT } from "../e2e/lifecycle/harness.mjs";

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
    stop = startEngineWatchdog({ started: false }, address, resolve, intervalMs);
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
    expect(startEngineWatchdog({ started: false }, undefined, () => undefined, 10)).toBeUndefined();
  });

  it.runIf(fs.existsSync("/proc/self/stat"))(
    "exits once the engine's process has ended, though another process listens on its port by then (a reused port)",
    async () => {
      const address = await engine(); // stays open: every probe is answered
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cms-watchdog-"));
      const provider = path.join(dir, "provider.js");
      const engineJs = path.join(dir, "engine.js");
      const watchdogJs = path.join(REPO_ROOT, "dist", "hosts", "engine-watchdog.js");
      fs.writeFileSync(
        provider,
        `require(${JSON.stringify(watchdogJs)}).startEngineWatchdog({ started: false }, ${JSON.stringify(address)}, (code) => process.exit(code), 50);
console.log(process.pid);
setInterval(() => {}, 1000);
`,
      );
      // As the CLI starts the dynamic-provider host: a shell script that runs node (and does not exec it).
      fs.writeFileSync(
        engineJs,
        `require("node:child_process").spawn("sh", ["-c", '"$0" "$1"; true', process.execPath, ${JSON.stringify(provider)}], { stdio: "inherit" });
setInterval(() => {}, 1000);
`,
      );
      const enginePs = spawn(process.execPath, [engineJs], { stdio: ["ignore", "pipe", "inherit"] });
      let providerPid = 0;
      try {
        const line = await new Promise<string>((resolve) => createInterface({ input: enginePs.stdout! }).once("line", resolve));
        providerPid = Number(line);
        expect(alive(providerPid)).toBe(true);
        enginePs.kill("SIGKILL");
        await eventually(() => !alive(providerPid), { timeoutMs: 10_000, intervalMs: 50, what: "the provider to exit" });
      } finally {
        enginePs.kill("SIGKILL");
        if (providerPid && alive(providerPid)) process.kill(providerPid, "SIGKILL");
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it.runIf(fs.existsSync("/proc/self/stat"))(
    "once its engine has ended, ends that engine's other provider hosts left behind without a watchdog (started just before the kill), never a live engine's",
    async () => {
      const address = await engine(); // stays open: the engine's process alone says it is gone
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cms-watchdog-"));
      const watchdogJs = path.join(REPO_ROOT, "dist", "hosts", "engine-watchdog.js");
      // Hosts where the CLI's are: `.../cmd/dynamic-provider/index.js ADDRESS`; only the first has
      // this package's code (a host that got a Cluster request).
      const host = (name: string, body: string) => {
        const file = path.join(dir, name, "cmd", "dynamic-provider", "index.js");
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, `${body}\nconsole.log(process.pid);\nsetInterval(() => {}, 1000);\n`);
        return file;
      };
      const watched = host(
        "a",
        `require(${JSON.stringify(watchdogJs)}).startEngineWatchdog({ started: false }, process.argv[2], (code) => process.exit(code), 50);`,
      );
      const bare = host("b", "");
      // An engine: starts each host through a shell script named as the CLI's, which runs node
      // (and does not exec it).
      const wrapper = path.join(dir, "pulumi-resource-pulumi-nodejs");
      fs.writeFileSync(wrapper, `#!/bin/sh\n${JSON.stringify(process.execPath)} "$@"\ntrue\n`, { mode: 0o755 });
      const engineJs = path.join(dir, "engine.js");
      fs.writeFileSync(
        engineJs,
        `for (const file of process.argv.slice(2)) require("node:child_process").spawn(${JSON.stringify(wrapper)}, [file, ${JSON.stringify(address)}], { stdio: "inherit" });
setInterval(() => {}, 1000);
`,
      );
      const start = async (files: string[]) => {
        const ps = spawn(process.execPath, [engineJs, ...files], { stdio: ["ignore", "pipe", "inherit"] });
        const lines = createInterface({ input: ps.stdout! });
        const pids: number[] = [];
        await new Promise<void>((resolve) => lines.on("line", (l) => pids.push(Number(l)) === files.length && resolve()));
        return { ps, pids };
      };
      const dead = await start([watched, bare]);
      // Another engine's host on the same address (a reused port): its engine lives on.
      const live = await start([bare]);
      const all = [...dead.pids, ...live.pids];
      try {
        expect(all.every(alive)).toBe(true);
        dead.ps.kill("SIGKILL");
        await eventually(() => dead.pids.every((pid) => !alive(pid)), {
          timeoutMs: 10_000,
          intervalMs: 50,
          what: "both hosts of the ended engine to exit",
        });
        expect(alive(live.pids[0])).toBe(true);
      } finally {
        for (const e of [dead, live]) e.ps.kill("SIGKILL");
        for (const pid of all) if (alive(pid)) process.kill(pid, "SIGKILL");
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});
