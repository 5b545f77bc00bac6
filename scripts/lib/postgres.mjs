// @ts-check
/**
 * A throwaway PostgreSQL server for the tests and benchmarks that run the Pulumi CLI's PostgreSQL
 * state backend: `scripts/postgres` (the one owner of starting and stopping it) on a temporary
 * directory. The server is stopped and its directory removed by `stop()`, and, should the caller
 * never get there, when this process exits.
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
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
 */

/** @returns {Promise<Postgres>} */
export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-postgres-"));
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    execFileSync(SCRIPT, ["stop", dir], { stdio: ["ignore", "ignore", "inherit"] });
  };
  process.on("exit", stopNow);
  try {
    const { stdout } = await execFile(SCRIPT, ["start", dir], { encoding: "utf8" });
    const url = stdout.trim().split("\n").pop() ?? "";
    if (!url.startsWith("postgres://")) throw new Error(`scripts/postgres start printed no connection string: ${JSON.stringify(stdout)}`);
    return {
      url,
      stop: async () => {
        process.off("exit", stopNow);
        if (stopped) return;
        stopped = true;
        await execFile(SCRIPT, ["stop", dir]);
      },
    };
  } catch (e) {
    stopNow();
    process.off("exit", stopNow);
    throw e;
  }
}
