/**
 * The processes under a process, read from /proc (Linux): for the tests of what an emulator
 * leaves running. Plain JavaScript so that the root's CLI driver (`scripts/lib/pulumi-driver.mjs`,
 * run by node as it is) shares it.
 */
import fs from "node:fs";

/**
 * @param {number} pid
 * @returns {string | undefined} the text of /proc/<pid>/stat after the command name, or undefined when gone
 */
function statAfterComm(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2);
  } catch {
    return undefined;
  }
}

/**
 * Every live descendant of `pid` (children, grandchildren...), read from /proc. The Pulumi CLI
 * starts its plugins in process groups of their own, so killing its group misses them.
 *
 * @param {number} pid
 * @returns {number[]}
 */
export function descendants(pid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const rest = statAfterComm(Number(entry));
    if (rest === undefined) continue; // exited meanwhile
    const ppid = Number(rest.split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out = [];
  const todo = [pid];
  while (todo.length > 0) {
    for (const c of children.get(/** @type {number} */ (todo.pop())) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

/**
 * True while process `pid` exists (and is not a zombie).
 *
 * @param {number} pid
 */
export function alive(pid) {
  const rest = statAfterComm(pid);
  return rest !== undefined && rest[0] !== "Z";
}
