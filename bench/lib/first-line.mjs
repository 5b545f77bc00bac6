import { spawn } from "node:child_process";
import { nowMs } from "./observer.mjs";

/**
 * Ms from spawning `file` to its first line of stdout (for a plugin, the port it serves on, which
 * the engine waits for); the process is then killed.
 * @param {string} file
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
export function firstLine(file, args, env) {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "ignore"], env });
    let buffered = "";
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      if (!buffered.includes("\n")) return;
      resolve(nowMs() - start);
      child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (!buffered.includes("\n")) reject(new Error(`${file} exited (${code}) before printing a line`));
    });
  });
}
