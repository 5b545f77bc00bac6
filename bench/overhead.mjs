#!/usr/bin/env node
/**
 * What the package adds to a Pulumi command over the engine's own floor (`npm run bench:overhead`).
 *
 * The same commands (`up`, `preview`, `refresh`, `up` changing `workers`, `destroy`) run on a stack
 * of N auto-named `Cluster`s and on a stack of N minimal dynamic resources whose provider answers
 * at once (the floor: the engine, the Node program and the dynamic-provider host, nothing else),
 * against the in-process emulator with instant lifecycle (provisioning, scaling and deleting take
 * 0 s). Stacks of each size run their commands interleaved (cms, floor, then floor, cms the next
 * round), so both see the same machine. Reports the median wall time of each, their ratio, and the
 * API calls of each cms command (the emulator's per-route request counts).
 *
 * Then what loading the package costs (modules and ms added after `@pulumi/pulumi`, medians of
 * fresh processes): `require("pulumi-cms")` as a program does, and the provider host's
 * `pulumi-cms/dist/provider/cluster-provider.js` before any call, after `check` and `diff` (all a
 * preview needs) and after a `read` (an operation that calls the API). The host's steps run in a
 * process started as the engine starts the host, once without Node's compile cache (a host's
 * first command) and once with the cache an earlier command left.
 *
 * The package is installed from its tarball (`npm pack` of the build), as a user's project has it.
 *
 *   npm run bench:overhead                              (builds first; needs the CLI: scripts/ensure-pulumi)
 *   BENCH_ROUNDS=7 BENCH_SIZES=1,20 npm run bench:overhead
 *   BENCH_BEFORE_DIR=/tmp/before npm run bench:overhead (also measures that build, interleaved, as "before")
 *   BENCH_JSON=file                                     (raw samples)
 *
 * Prints Markdown tables. Figures: docs/benchmarks.md.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { createProject, ensurePulumi, installTarball, root } from "./lib/pulumi.mjs";
import { destroyAll, median, runRounds, sampleLoads } from "./lib/rounds.mjs";

const require = createRequire(import.meta.url);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const SIZES = (process.env.BENCH_SIZES ?? "1,20").split(",").map((s) => Math.max(1, Number(s)));
const LOAD_SAMPLES = Math.max(1, Number(process.env.BENCH_LOAD_SAMPLES ?? 9));

const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

/** N auto-named clusters of `CMS_BENCH_WORKERS` workers, from the installed package. */
const CMS_PROGRAM = `"use strict";
const cms = require("pulumi-cms");
const count = Number(process.env.CMS_BENCH_COUNT);
const workers = Number(process.env.CMS_BENCH_WORKERS);
for (let i = 0; i < count; i++) new cms.Cluster("c" + i, { controlPlanes: 1, workers, nodeSize: "small" });
`;

/** The floor: N dynamic resources with the same input, whose provider does nothing. */
const FLOOR_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) { return { id: require("node:crypto").randomUUID(), outs: inputs }; },
  async diff(_id, olds, news) { return { changes: olds.workers !== news.workers }; },
  async update(_id, _olds, news) { return { outs: news }; },
  async read(id, props) { return { id, props }; },
  async delete() {},
};
class Minimal extends pulumi.dynamic.Resource {
  constructor(name, args) { super(provider, name, args, {}, "bench", "Minimal"); }
}
const count = Number(process.env.CMS_BENCH_COUNT);
const workers = Number(process.env.CMS_BENCH_WORKERS);
for (let i = 0; i < count; i++) new Minimal("r" + i, { workers });
`;

const FLAGS = ["--yes", "--skip-preview", "--non-interactive"];
const COMMANDS = [
  { label: "up", args: ["up", ...FLAGS], env: { CMS_BENCH_WORKERS: "1" } },
  { label: "preview", args: ["preview", "--expect-no-changes", "--non-interactive"], env: { CMS_BENCH_WORKERS: "1" } },
  { label: "refresh", args: ["refresh", ...FLAGS], env: { CMS_BENCH_WORKERS: "1" } },
  { label: "update (workers)", args: ["up", ...FLAGS], env: { CMS_BENCH_WORKERS: "2" } },
  { label: "destroy", args: ["destroy", ...FLAGS], env: { CMS_BENCH_WORKERS: "2" } },
];

const packages = [{ label: "cms", ...installTarball(root) }];
if (process.env.BENCH_BEFORE_DIR) packages.push({ label: "before", ...installTarball(process.env.BENCH_BEFORE_DIR) });
const kinds = [
  ...packages.map((p) => ({ label: p.label, program: CMS_PROGRAM, nodeModules: p.nodeModules })),
  { label: "floor", program: FLOOR_PROGRAM },
];

const { startEmulator } = require("@pulumi-cms/emulator");
const binDir = await ensurePulumi();
const emu = await startEmulator({ port: 0, provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0, upgradeSeconds: 0 });

const load = sampleLoads();

/** samples[N][command][kind] = [{ wallMs, calls, byRoute }] */
const samples = {};
const projects = [];
/** A project directory of each package's smallest stack: where `pulumi-cms` resolves as in it. */
const projectDirOf = new Map();
let loadResults = [];
let loadRange = "";
try {
  for (const N of SIZES) {
    const stacks = [];
    for (const kind of kinds) {
      const project = await createProject({
        name: `cms-overhead-${kind.label}-${N}`,
        program: kind.program,
        nodeModules: kind.nodeModules,
        env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token, CMS_BENCH_COUNT: String(N) },
      });
      projects.push(project);
      if (!projectDirOf.has(kind.label)) projectDirOf.set(kind.label, project.project);
      await project.init();
      stacks.push({ kind, project });
    }
    samples[N] = await runRounds({ stacks, commands: COMMANDS, rounds: ROUNDS, emu, log, what: `N=${N} ` });
  }
  loadResults = await measureLoading();
} finally {
  loadRange = load.stop();
  await destroyAll(projects, FLAGS);
  for (const p of packages) p.cleanup();
  await emu.close();
}

/**
 * Modules and ms that loading the package adds after @pulumi/pulumi, in fresh processes started in
 * a project of each package (so `pulumi-cms` resolves as the program and the host resolve it).
 */
async function measureLoading() {
  const script = `
const { performance } = require("node:perf_hooks");
const what = process.env.BENCH_LOAD_WHAT;
const suffix = what === "host-cached" ? ", compile cache warm" : "";
const count = () => Object.keys(require.cache).length;
const out = {};
const step = async (name, fn) => { const m = count(); const t = performance.now(); await fn(); out[name] = { modules: count() - m, ms: performance.now() - t }; };
(async () => {
  require("@pulumi/pulumi");
  if (what === "program") {
    await step("program", () => require("pulumi-cms"));
  } else {
    let p;
    await step("host" + suffix, () => { p = require("pulumi-cms/dist/provider/cluster-provider.js").clusterProvider; });
    const news = { controlPlanes: 1, workers: 1, nodeSize: "small", __urn: "urn:pulumi:s::p::pulumi-nodejs:dynamic/cms:Cluster::c0", __seed: "0123456789abcdef0123456789abcdef" };
    let checked;
    await step("host: check + diff" + suffix, async () => { checked = (await p.check({}, news)).inputs; await p.diff("x", checked, checked); });
    await step("host: read (an API call)" + suffix, () => p.read("cls_0000000000000000", { ...checked, name: "x", status: "running" }));
  }
  console.log(JSON.stringify(out));
})();`;
  const results = [];
  for (const p of packages) {
    const cwd = projectDirOf.get(p.label);
    // The host's steps run from a file where the engine's host is (`.../cmd/dynamic-provider/index.js`,
    // with an engine address), so the package behaves as in the host; the program's from the project.
    const hostScript = join(cwd, ".bench-host", "cmd", "dynamic-provider", "index.js");
    mkdirSync(join(hostScript, ".."), { recursive: true });
    writeFileSync(hostScript, script);
    writeFileSync(join(cwd, "bench-program.js"), script);
    const cacheHome = mkdtempSync(join(os.tmpdir(), "pulumi-cms-bench-cache-"));
    const run = async (what) => {
      const env = { ...process.env, CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token, BENCH_LOAD_WHAT: what, TMPDIR: cacheHome };
      delete env.NODE_COMPILE_CACHE;
      if (what === "host") env.NODE_DISABLE_COMPILE_CACHE = "1";
      else delete env.NODE_DISABLE_COMPILE_CACHE;
      // Asynchronous: the emulator answering the read runs in this process.
      const file = what === "program" ? join(cwd, "bench-program.js") : hostScript;
      const { stdout } = await promisify(execFile)(process.execPath, [file, "127.0.0.1:9"], { cwd, env });
      return JSON.parse(stdout.trim().split("\n").pop());
    };
    await run("host-cached"); // leaves the cache the measured ones find
    const runs = [];
    for (let i = 0; i < LOAD_SAMPLES; i++) {
      for (const what of ["program", "host", "host-cached"]) runs.push(await run(what));
    }
    rmSync(cacheHome, { recursive: true, force: true });
    const steps = {};
    for (const run of runs) {
      for (const [name, v] of Object.entries(run)) {
        steps[name] ??= [];
        steps[name].push(v);
      }
    }
    for (const [name, list] of Object.entries(steps)) {
      results.push({ label: p.label, step: name, modules: median(list.map((v) => v.modules)), ms: median(list.map((v) => v.ms)) });
    }
  }
  return results;
}

const secs = (ms) => (ms / 1000).toFixed(2);
console.log(
  `Pulumi CLI (${binDir}), Node ${process.version}, ${os.cpus().length} cores, ${loadRange}; ${ROUNDS} rounds, medians; emulator with instant lifecycle\n`,
);
const labels = packages.map((p) => p.label);
const header = [
  "N",
  "command",
  ...labels.map((l) => `${l} (s)`),
  "floor (s)",
  ...labels.map((l) => `${l} ÷ floor`),
  ...labels.map((l) => `${l} calls`),
  "calls by route (cms, median round)",
];
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
for (const N of SIZES) {
  for (const command of COMMANDS) {
    const byKind = samples[N][command.label];
    const floor = median(byKind.floor.map((s) => s.wallMs));
    const walls = labels.map((l) => median(byKind[l].map((s) => s.wallMs)));
    const calls = labels.map((l) => {
      const c = byKind[l].map((s) => s.calls);
      const lo = Math.min(...c);
      const hi = Math.max(...c);
      return lo === hi ? String(lo) : `${median(c)} (${lo}–${hi})`;
    });
    const cms = byKind.cms;
    const mid = [...cms].sort((a, b) => a.calls - b.calls)[Math.floor(cms.length / 2)];
    const routes = Object.entries(mid.byRoute)
      .map(([route, n]) => `${route} ${n}`)
      .join(", ");
    console.log(
      `| ${N} | ${command.label} | ${walls.map(secs).join(" | ")} | ${secs(floor)} | ${walls.map((w) => (w / floor).toFixed(2)).join(" | ")} | ${calls.join(" | ")} | ${routes} |`,
    );
  }
}
console.log("\n| package | what is loaded | modules | ms (median) |");
console.log("|---|---|---|---|");
for (const r of loadResults) console.log(`| ${r.label} | ${r.step} | ${r.modules} | ${r.ms.toFixed(1)} |`);

if (process.env.BENCH_JSON)
  writeFileSync(process.env.BENCH_JSON, JSON.stringify({ samples, loads: load.loads, loading: loadResults }, null, 2));
