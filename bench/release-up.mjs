#!/usr/bin/env node
/**
 * A YAML `up` (and `destroy`) of N clusters on the release's plugin executable beside the same
 * on today's bundle through Node.js (`npm run bench:release-up`): what issue 58 asks of the
 * single executable, "no slower" than the plugin a user of `npm install -g pulumi-cms` runs.
 *
 * Two stacks of one YAML program of N (20) `cms:index:Cluster`s, against the in-process emulator
 * with instant lifecycle (provisioning and deleting take 0 s), so what differs is the plugin:
 *
 * - executable: the linux-amd64 archive of `scripts/release.mjs` unpacked into a directory of its
 *   own, the only thing on PATH besides the Pulumi CLI (no `node` to find);
 * - bundle: the package's bin (`dist/plugin/pulumi-resource-cms.js`, installed from the tarball of
 *   `npm pack`) on PATH, with the Node.js running this script beside it.
 *
 * Rounds alternate the order (bench/lib/rounds.mjs), so neither always runs on the warmer machine.
 * Reports the median wall time of each command, the executable's over the bundle's per round (the
 * median of those ratios: the machine's pace drifts between rounds) and the API calls, with the
 * load average over the run.
 *
 *   npm run bench:release-up                 (builds first; needs the CLI: scripts/ensure-pulumi)
 *   BENCH_ROUNDS=9 BENCH_COUNT=20 npm run bench:release-up
 *   BENCH_JSON=file                          (raw samples)
 *
 * Prints a Markdown table. Figures: docs/benchmarks.md.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { delimiter, dirname, join } from "node:path";
import { createProject, ensurePulumi, installTarball, linkPluginBin, root } from "./lib/pulumi.mjs";
import { releaseExecutableDir } from "./lib/release.mjs";
import { destroyAll, median, runRounds, sampleLoads } from "./lib/rounds.mjs";

const require = createRequire(import.meta.url);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const COUNT = Math.max(1, Number(process.env.BENCH_COUNT ?? 20));

const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

const resources = Array.from(
  { length: COUNT },
  (_, i) => `  c${i}:\n    type: cms:index:Cluster\n    properties:\n      controlPlanes: 1\n      workers: 1\n      nodeSize: small\n`,
).join("");
const PULUMI_YAML = `name: release-up\nruntime: yaml\nresources:\n${resources}`;

const FLAGS = ["--yes", "--skip-preview", "--non-interactive"];
const COMMANDS = [
  { label: "up", args: ["up", ...FLAGS] },
  { label: "destroy", args: ["destroy", ...FLAGS] },
];

const work = mkdtempSync(join(os.tmpdir(), "cms-bench-release-up-"));
const pkg = installTarball(root);
const bundleBin = linkPluginBin(pkg.nodeModules);
log("writing the linux-amd64 release archive");
const executableBin = releaseExecutableDir(work);
const binDir = await ensurePulumi();
// The executable's PATH must not find Node.js, or the comparison would not be the one a user without it sees.
for (const dir of [binDir, executableBin]) {
  if (existsSync(join(dir, "node"))) throw new Error(`${dir} holds a node: the executable's PATH must have none`);
}
const KINDS = [
  { label: "executable", path: [binDir, executableBin] },
  { label: "bundle", path: [binDir, bundleBin, dirname(process.execPath)] },
];

const { startEmulator } = require("@pulumi-cms/emulator");
const emu = await startEmulator({ port: 0, provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0, upgradeSeconds: 0 });
const load = sampleLoads();

/** samples[command][kind] = [{ wallMs, calls, byRoute }] */
let samples = {};
const projects = [];
let loadRange = "";
try {
  const stacks = [];
  for (const kind of KINDS) {
    const project = await createProject({
      name: "release-up",
      program: "",
      nodeModules: pkg.nodeModules,
      files: { "Pulumi.yaml": PULUMI_YAML },
      env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token, PATH: kind.path.join(delimiter) },
    });
    projects.push(project);
    await project.init();
    stacks.push({ kind, project });
  }
  samples = await runRounds({ stacks, commands: COMMANDS, rounds: ROUNDS, emu, log });
} finally {
  loadRange = load.stop();
  await destroyAll(projects, FLAGS);
  pkg.cleanup();
  await emu.close();
  rmSync(work, { recursive: true, force: true });
}

const secs = (ms) => (ms / 1000).toFixed(2);
console.log(
  `Pulumi CLI (${binDir}), Node ${process.version}, ${os.cpus().length} cores, ${loadRange}; ${ROUNDS} rounds, alternating; N = ${COUNT}; emulator with instant lifecycle\n`,
);
console.log("| plugin | up (s), median | range | destroy (s), median | range | API calls (up) |");
console.log("|---|---|---|---|---|---|");
for (const { label } of KINDS) {
  const cells = [label];
  for (const { label: command } of COMMANDS) {
    const walls = samples[command][label].map((s) => s.wallMs);
    cells.push(secs(median(walls)), `${secs(Math.min(...walls))}-${secs(Math.max(...walls))}`);
  }
  cells.push(String(median(samples.up[label].map((s) => s.calls))));
  console.log(`| ${cells.join(" | ")} |`);
}
for (const { label: command } of COMMANDS) {
  const ratios = samples[command].executable.map((s, i) => s.wallMs / samples[command].bundle[i].wallMs);
  console.log(
    `\nexecutable ÷ bundle, ${command}, per round: median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
  );
}

if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ samples, loads: load.loads }, null, 2));
