/**
 * Stopping with the launcher: run through `npx cms-emulator …` (`npm exec`), the emulator is a
 * grandchild of npm, and stopping npm (`kill %1` in a script, a CI step that ends) does not stop
 * it: npm passes no signal on, and the emulator would keep its port. So when npm started it,
 * the emulator watches npm's process and stops when it is gone.
 */
import { readFileSync } from "node:fs";

/** The parent pid of `pid` (Linux /proc), or undefined. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "";
  }
}

/**
 * The pid of the `npm exec` / `npx` process that launched this one (a few ancestors up:
 * npm → `sh -c` → node), or undefined when npm did not launch it or /proc is not there.
 */
export function npmLauncherPid(env: NodeJS.ProcessEnv = process.env, start: number = process.ppid): number | undefined {
  if (env.npm_command !== "exec") return undefined;
  let pid: number | undefined = start;
  for (let depth = 0; pid !== undefined && pid > 1 && depth < 4; depth++) {
    if (/^(npm exec|npx)\b/.test(commandLine(pid))) return pid;
    pid = parentOf(pid);
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Call `onGone` once the launching npm process is gone (checked every `intervalMs`). */
export function watchLauncher(onGone: () => void, intervalMs = 1_000): void {
  const pid = npmLauncherPid();
  if (pid === undefined) return;
  const timer = setInterval(() => {
    if (alive(pid)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}
