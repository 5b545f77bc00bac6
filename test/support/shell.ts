/**
 * A shell a test types into, as a person types a document's commands: one `bash -eu`, in a
 * process group of its own, whose state (the directory, exported variables) carries from one
 * block to the next.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { eventually } from "../e2e/lifecycle/harness.mjs";

/** One interactive-like shell: commands written to its stdin, in order, as a person types them. */
export function shell(cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn("bash", ["-eu"], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let output = "";
  let exited: number | null | undefined;
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  child.on("exit", (code) => (exited = code));
  let marks = 0;
  return {
    output: () => output,
    /** Type `script`; resolves once it has run, rejects (with the output) if the shell stopped. */
    async type(script: string, timeoutMs: number): Promise<void> {
      const mark = `__typed_${++marks}__`;
      child.stdin.write(`${script}\necho ${mark}\n`);
      await eventually(
        () => {
          if (exited !== undefined) throw new Error(`the shell stopped (exit ${exited}):\n${output}`);
          return output.includes(mark);
        },
        { timeoutMs, intervalMs: 200, what: "the typed block to finish", describe: () => output },
      );
    },
    close(): void {
      child.stdin.end();
      if (exited === undefined) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // gone
        }
      }
    },
  };
}

/** Stop the process a command recorded in `pidFile` (a daemon a document's commands started), if it still runs. */
export function stopFromPidFile(pidFile: string): void {
  if (!fs.existsSync(pidFile)) return;
  try {
    process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGTERM");
  } catch {
    // gone
  }
}
