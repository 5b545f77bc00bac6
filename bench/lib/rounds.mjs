/**
 * The measuring loop the CLI benchmarks share: every command on every stack, round after round,
 * the stacks in alternating order (so neither kind always runs first, on a warmer machine), with
 * the emulator's request counts of each run; and the machine's load over the whole measurement,
 * which the reports print beside the figures.
 */
import os from "node:os";

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Samples the 1-minute load average every 5 s until `stop()`, which returns the samples and a
 * sentence saying their range for the report.
 */
export function sampleLoads() {
  const loads = [os.loadavg()[0]];
  const timer = setInterval(() => loads.push(os.loadavg()[0]), 5_000);
  return {
    loads,
    stop() {
      clearInterval(timer);
      return `1-minute load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (median ${median(loads).toFixed(1)}, sampled every 5 s)`;
    },
  };
}

/**
 * Runs `commands` ({ label, args, env? }) on each of `stacks` ({ kind: { label }, project }) for
 * `rounds` rounds, resetting the emulator's request counts before each run; a failed run throws
 * with its output. Returns samples[command label][kind label] = [{ wallMs, calls, byRoute }].
 */
export async function runRounds({ stacks, commands, rounds, emu, log = () => {}, what = "" }) {
  const samples = {};
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? stacks : [...stacks].reverse();
    log(`${what}round ${round + 1}/${rounds}`);
    for (const command of commands) {
      for (const { kind, project } of order) {
        await emu.control.resetRequestCounts();
        const r = await project.run(command.args, command.env ?? {}, { timeoutMs: 5 * 60_000 });
        if (r.code !== 0) throw new Error(`${what}${kind.label}: pulumi ${command.args.join(" ")} failed:\n${r.output}`);
        const byRoute = await emu.control.requestCounts();
        const calls = Object.values(byRoute).reduce((a, b) => a + b, 0);
        samples[command.label] ??= {};
        samples[command.label][kind.label] ??= [];
        samples[command.label][kind.label].push({ wallMs: r.wallMs, calls, byRoute });
      }
    }
  }
  return samples;
}

/** Destroys each project's stack (a failure is left to the report's reader) and removes its files. */
export async function destroyAll(projects, args) {
  for (const p of projects) {
    await p.run(["destroy", ...args]).catch(() => undefined);
    p.cleanup();
  }
}
