// @ts-check
/**
 * A throwaway PostgreSQL server for the tests and benchmarks that run the Pulumi CLI's PostgreSQL
 * state backend: `scripts/postgres` (the one owner of starting and stopping it) on a temporary
 * directory. The server is stopped and its directory removed by `stop()`, or, should the caller
 * never get there, as soon as this process is gone, however it ends (an exception, a signal, even
 * SIGKILL): a watcher process holds a pipe from this one and stops the server when the pipe
 * closes, which the kernel does when this process ends.
 */
import { execFile as execFileCb, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./pulumi-driver.mjs";

const execFile = promisify(execFileCb);
const SCRIPT = path.join(REPO_ROOT, "scripts", "postgres");

/**
 * @typedef {object} Postgres
 * @property {string} url the backend's URL: `postgres://pulumi@127.0.0.1:PORT/state?sslmode=disable`
 * @property {() => Promise<void>} stop stops the server and removes its files (again: nothing)
 * @property {() => Promise<void>} halt the server gone as in a crash (SIGKILL of the postmaster and its processes), its files kept
 * @property {() => Promise<void>} resume starts the halted server again, on the same port with the same files
 */

/** @returns {Promise<Postgres>} */
export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-postgres-"));
  const watcher = stopWhenGone(dir);
  try {
    const { stdout } = await execFile(SCRIPT, ["start", dir], { encoding: "utf8" });
    const url = stdout.trim().split("\n").pop() ?? "";
    if (!url.startsWith("postgres://")) throw new Error(`scripts/postgres start printed no connection string: ${JSON.stringify(stdout)}`);
    return {
      url,
      stop: watcher.stop,
      halt: async () => void (await execFile(SCRIPT, ["halt", dir])),
      resume: async () => void (await execFile(SCRIPT, ["resume", dir])),
    };
  } catch (e) {
    await watcher.stop().catch(() => undefined);
    throw e;
  }
}

/**
 * The watcher of `dir`'s server: a process of its own group (a kill of this process's group
 * leaves it to clean up) that reads its stdin, a pipe whose only writer is this process, to the
 * end, then runs `scripts/postgres stop dir`. `stop()` closes the pipe and resolves once the
 * server is stopped; it never keeps this process alive otherwise.
 * @param {string} dir
 * @returns {{ stop: () => Promise<void> }}
 */
function stopWhenGone(dir) {
  const child = spawn("bash", ["-c", 'cat >/dev/null; exec "$0" stop "$1"', SCRIPT, dir], {
    detached: true,
    stdio: ["pipe", "ignore", "inherit"],
  });
  /** @type {Promise<void>} */
  const exited = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`scripts/postgres stop ${dir} failed (${signal ?? `exit code ${code}`})`)),
    );
  });
  // Unhandled until stop() is called: the watcher's failure is reported there.
  exited.catch(() => undefined);
  child.unref();
  /** @type {import("node:net").Socket} */ (/** @type {unknown} */ (child.stdin)).unref();
  /** @type {Promise<void> | undefined} */
  let stopping;
  return {
    stop: () => {
      stopping ??= (() => {
        child.ref();
        child.stdin?.end();
        return exited;
      })();
      return stopping;
    },
  };
}
