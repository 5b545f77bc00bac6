/**
 * The throwaway PostgreSQL server of the tests and benchmarks (`scripts/lib/postgres.mjs`, on
 * `scripts/postgres`) never outlives its owner: `stop()` stops it before resolving, and an owner
 * that ends without calling it, by exiting or by SIGKILL to its whole process group (a CI job
 * killed), leaves no server behind.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startPostgres } from "../../scripts/lib/postgres.mjs";
import { REPO_ROOT } from "../../scripts/lib/pulumi-driver.mjs";
import { eventually } from "../support/eventually.mjs";

const LIBRARY = pathToFileURL(path.join(REPO_ROOT, "scripts", "lib", "postgres.mjs")).href;

/** Whether a server accepts connections on the URL's port. */
function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port: Number(new URL(url).port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A process of its own group that starts a server, prints its URL, then runs `then`. */
function owner(then: string): { child: ChildProcess; url: Promise<string> } {
  const source = `import { startPostgres } from ${JSON.stringify(LIBRARY)};
const server = await startPostgres();
console.log(server.url);
${then}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("postgres://"));
      if (line) resolve(line);
    });
    child.once("close", (code) => reject(new Error(`the owner exited (${code}) before printing a URL: ${out}`)));
  });
  return { child, url };
}

const STOPPED = { timeoutMs: 30_000, what: "the server stopped" };

describe("the tests' throwaway PostgreSQL server", () => {
  it("is stopped when stop() resolves", async () => {
    const server = await startPostgres();
    expect(await accepts(server.url)).toBe(true);
    await server.stop();
    expect(await accepts(server.url)).toBe(false);
    await server.stop();
  }, 60_000);

  it("is stopped when its owner's process group is killed with SIGKILL", async () => {
    const { child, url } = owner("setInterval(() => undefined, 60_000);");
    const serverUrl = await url;
    expect(await accepts(serverUrl)).toBe(true);
    process.kill(-child.pid!, "SIGKILL");
    await eventually(async () => !(await accepts(serverUrl)), STOPPED);
  }, 60_000);

  it("is stopped when its owner exits without stopping it", async () => {
    const { url } = owner("process.exit(0);");
    const serverUrl = await url;
    await eventually(async () => !(await accepts(serverUrl)), STOPPED);
  }, 60_000);
});
