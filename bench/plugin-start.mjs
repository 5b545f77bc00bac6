#!/usr/bin/env node
/**
 * The start of the release's plugin executable against the package's plugin through Node.js
 * (`npm run bench:plugin-start`): spawn to the port on stdout (what the engine waits for on every
 * command), of
 *
 * - the linux-amd64 executable of `scripts/release.mjs` (a Node.js single-executable application),
 *   run with nothing on PATH, as on a machine without Node.js;
 * - `node dist/plugin/pulumi-resource-cms.js`, the package's bin (its compile cache warm after the
 *   first start, as on every command after a user's first);
 * - a bare `node -e`, the floor of any Node.js process.
 *
 * Interleaved, one warm-up each; the median and the range of BENCH_RUNS (9) starts each.
 *
 *   npm run bench:plugin-start               (builds, then writes linux-amd64 into a temporary directory)
 *   BENCH_RUNS=15 npm run bench:plugin-start
 *
 * Prints a Markdown table. Figures: docs/benchmarks.md.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { firstLine } from "./lib/first-line.mjs";
import { root } from "./lib/pulumi.mjs";
import { releaseExecutableDir } from "./lib/release.mjs";
import { median } from "./lib/rounds.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const dir = mkdtempSync(join(os.tmpdir(), "cms-bench-start-"));
try {
  const bin = releaseExecutableDir(dir);
  const empty = join(dir, "empty");
  mkdirSync(empty);
  const engine = "127.0.0.1:9";
  /** @type {Record<string, [string, string[], NodeJS.ProcessEnv]>} */
  const commands = {
    "pulumi-resource-cms, single executable (no node on PATH)": [join(bin, "pulumi-resource-cms"), [engine], { PATH: empty, HOME: dir }],
    "node dist/plugin/pulumi-resource-cms.js": [process.execPath, [join(root, "dist/plugin/pulumi-resource-cms.js"), engine], process.env],
    'node -e "" (bare Node.js)': [process.execPath, ["-e", 'console.log("0")'], process.env],
  };
  /** @type {Record<string, number[]>} */
  const samples = {};
  for (const [file, args, env] of Object.values(commands)) await firstLine(file, args, env);
  for (let i = 0; i < RUNS; i++) {
    for (const [label, [file, args, env]] of Object.entries(commands)) {
      samples[label] ??= [];
      samples[label].push(await firstLine(file, args, env));
    }
  }
  console.log(`Node ${process.version}, ${os.cpus().length} cores, ${os.loadavg()[0].toFixed(2)} load; ${RUNS} starts each, interleaved\n`);
  console.log("| process | spawn to port, ms (median) | range |");
  console.log("|---|---|---|");
  for (const [label, ms] of Object.entries(samples)) {
    console.log(`| ${label} | ${median(ms).toFixed(0)} | ${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
