#!/usr/bin/env node
/**
 * What the native face costs over the engine's own floor (`npm run bench:native-overhead`).
 *
 * `up` then `destroy` of four stacks of N resources each, against the in-process emulator with
 * instant lifecycle (provisioning and deleting take 0 s):
 *
 * - floor: a YAML program of N `floor:index:Thing`s of bench/floor-provider, a Node.js native
 *   provider on `@pulumi/pulumi/provider` whose operations answer at once (the engine, the YAML
 *   language host and a Node.js plugin's start, nothing else);
 * - yaml: a YAML program of N `cms:index:Cluster`s, `pulumi-resource-cms` found on PATH;
 * - floor-shaped: a YAML program of N `floor:index:ClusterShaped`s, whose state has a Cluster's
 *   shape (the engine's work on a cluster's state, without the service);
 * - floor-nodejs: a Node.js program of N Things, the floor of the Node.js programs below (their
 *   language host and `@pulumi/pulumi` cost more than YAML's, whatever the provider);
 * - floor-nodejs-shaped: a Node.js program of N ClusterShapeds declared as the generated SDK
 *   declares a Cluster (its 14 properties, the kubeconfig a secret output);
 * - ts-native: a Node.js program of N Clusters of `pulumi-cms/native`, the plugin found through
 *   Pulumi.yaml's `plugins.providers` (`node_modules/.bin`), as docs/installation-configuration.md tells;
 * - dynamic: a Node.js program of N `pulumi-cms` (dynamic) Clusters.
 *
 * The Node.js programs are JavaScript (the package's compiled SDKs, no TypeScript step per run,
 * as in bench/overhead.mjs). The package is installed from its tarball (`npm pack` of the build).
 * Rounds are interleaved (floor, yaml, floor-nodejs, ts-native, dynamic, then the reverse), so
 * every kind sees the same machine. Reports the median wall time of each command, its ratio to the
 * floor (the YAML one, the yardstick) and to the floor of its own language (of the medians,
 * and the median of each round's ratio: a machine's pace drifts between rounds), and the API
 * calls; then the start of each plugin alone (spawn to the port on stdout, what the engine
 * waits for), beside a bare `node -e ""`.
 *
 *   npm run bench:native-overhead        (builds first; needs the CLI: scripts/ensure-pulumi)
 *   BENCH_ROUNDS=5 BENCH_COUNT=20 npm run bench:native-overhead
 *   BENCH_JSON=file                      (raw samples)
 *   BENCH_KINDS=yaml,ts-native           (only these kinds, their floors and the YAML floor)
 *   BENCH_BEFORE_DIR=/tmp/before         (also that build's yaml and ts-native, in the same rounds, as "<kind>-before")
 *
 * Prints Markdown tables. Figures: docs/benchmarks.md.
 */
import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { createProject, ensurePulumi, installTarball, linkPluginBin, root } from "./lib/pulumi.mjs";
import { firstLine } from "./lib/first-line.mjs";
import { destroyAll, median, runRounds, sampleLoads } from "./lib/rounds.mjs";

const require = createRequire(import.meta.url);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const COUNT = Math.max(1, Number(process.env.BENCH_COUNT ?? 20));
const START_SAMPLES = Math.max(1, Number(process.env.BENCH_START_SAMPLES ?? 7));
const TARGET = 1.15;

const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

const FLOOR_DIR = join(root, "bench", "floor-provider");

/** A YAML project of `count` resources of `type`, each given `properties`. */
const yamlProject = (name, type, properties) => {
  const resources = Array.from({ length: COUNT }, (_, i) => `  r${i}:\n    type: ${type}\n    properties:\n${properties}`).join("");
  return `name: ${name}\nruntime: yaml\nresources:\n${resources}`;
};
const CLUSTER_PROPERTIES = "      controlPlanes: 1\n      workers: 1\n      nodeSize: small\n";

/** N auto-named clusters of the given module of the installed package. */
const nodeProgram = (module) => `"use strict";
const cms = require(${JSON.stringify(module)});
const count = Number(process.env.CMS_BENCH_COUNT);
for (let i = 0; i < count; i++) new cms.Cluster("c" + i, { controlPlanes: 1, workers: 1, nodeSize: "small" });
`;

/** N Things of the floor provider, from a Node.js program. */
const FLOOR_NODE_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const count = Number(process.env.CMS_BENCH_COUNT);
for (let i = 0; i < count; i++) new pulumi.CustomResource("floor:index:Thing", "r" + i, { workers: 1 });
`;

/**
 * N ClusterShaped floor resources from a Node.js program, declared as `pulumi-cms/native`'s
 * generated `Cluster` declares a cluster: its 14 properties (7 inputs, 7 outputs unset) and the
 * kubeconfig a secret output.
 */
const FLOOR_NODE_SHAPED_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const count = Number(process.env.CMS_BENCH_COUNT);
const props = { connection: undefined, controlPlanes: 1, infraId: undefined, name: undefined, nodeSize: "small", phase: undefined, workers: 1,
  createdAt: undefined, endpoint: undefined, kubeconfig: undefined, kubernetesVersion: undefined, nodeCount: undefined, status: undefined, updatedAt: undefined };
for (let i = 0; i < count; i++) new pulumi.CustomResource("floor:index:ClusterShaped", "c" + i, { ...props }, { additionalSecretOutputs: ["kubeconfig"] });
`;

/** A Node.js project's Pulumi.yaml that finds the plugin `name` in `path`. */
const nodePulumiYaml = (project, name, path) =>
  `name: ${project}\nruntime: nodejs\nmain: index.js\nplugins:\n  providers:\n    - name: ${name}\n      path: ${path}\n`;

const FLAGS = ["--yes", "--skip-preview", "--non-interactive"];
const COMMANDS = [
  { label: "up", args: ["up", ...FLAGS] },
  { label: "destroy", args: ["destroy", ...FLAGS] },
];

const pkg = installTarball(root);
const pluginBin = linkPluginBin(pkg.nodeModules);
// Another build measured in the same rounds: its yaml and ts-native kinds, labelled "<kind>-before".
const before = process.env.BENCH_BEFORE_DIR ? installTarball(process.env.BENCH_BEFORE_DIR) : undefined;
const beforeBin = before && linkPluginBin(before.nodeModules);

const binDir = await ensurePulumi();
const pathWith = (dir) => [binDir, ...(dir ? [dir] : []), process.env.PATH ?? ""].join(delimiter);
const ALL_KINDS = [
  {
    label: "floor",
    files: { "Pulumi.yaml": yamlProject("native-overhead-floor", "floor:index:Thing", "      workers: 1\n") },
    path: FLOOR_DIR,
  },
  {
    label: "yaml",
    files: { "Pulumi.yaml": yamlProject("native-overhead-yaml", "cms:index:Cluster", CLUSTER_PROPERTIES) },
    path: pluginBin,
    target: true,
  },
  {
    // The engine's work on the state a Cluster leaves, without the service: what of yaml's cost
    // is the resource's shape rather than the plugin.
    label: "floor-shaped",
    files: { "Pulumi.yaml": yamlProject("native-overhead-floor-shaped", "floor:index:ClusterShaped", CLUSTER_PROPERTIES) },
    path: FLOOR_DIR,
  },
  {
    label: "floor-nodejs",
    program: FLOOR_NODE_PROGRAM,
    files: { "Pulumi.yaml": nodePulumiYaml("native-overhead-floor-nodejs", "floor", FLOOR_DIR) },
    floor: "floor-nodejs",
  },
  {
    // The same for a Node.js program: what of ts-native's cost is the SDK's and the state's shape.
    label: "floor-nodejs-shaped",
    program: FLOOR_NODE_SHAPED_PROGRAM,
    files: { "Pulumi.yaml": nodePulumiYaml("native-overhead-floor-nodejs-shaped", "floor", FLOOR_DIR) },
    floor: "floor-nodejs",
  },
  {
    label: "ts-native",
    program: nodeProgram("pulumi-cms/native"),
    files: { "Pulumi.yaml": nodePulumiYaml("native-overhead-ts", "cms", "node_modules/.bin") },
    floor: "floor-nodejs",
    target: true,
  },
  { label: "dynamic", program: nodeProgram("pulumi-cms"), floor: "floor-nodejs" },
];
// A subset for quick comparisons, e.g. BENCH_KINDS=yaml: those kinds, their floors and the YAML floor.
const wanted = process.env.BENCH_KINDS?.split(",").map((k) => k.trim());
const needed = wanted && new Set(["floor", ...wanted, ...ALL_KINDS.filter((k) => wanted.includes(k.label) && k.floor).map((k) => k.floor)]);
const chosen = needed ? ALL_KINDS.filter((k) => needed.has(k.label)) : ALL_KINDS;
const kinds = !before
  ? chosen
  : chosen.flatMap((k) =>
      !k.target
        ? [k]
        : [k, { ...k, label: `${k.label}-before`, nodeModules: before.nodeModules, path: k.path === pluginBin ? beforeBin : k.path }],
    );

const { startEmulator } = require("@pulumi-cms/emulator");
const emu = await startEmulator({ port: 0, provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0, upgradeSeconds: 0 });

const load = sampleLoads();

/** samples[command][kind] = [{ wallMs, calls, byRoute }] */
let samples = {};
const projects = [];
let starts = {};
let loadRange = "";
try {
  const stacks = [];
  for (const kind of kinds) {
    const project = await createProject({
      name: `native-overhead-${kind.label}`,
      program: kind.program ?? "",
      nodeModules: kind.nodeModules ?? pkg.nodeModules,
      files: kind.files,
      env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token, CMS_BENCH_COUNT: String(COUNT), PATH: pathWith(kind.path) },
    });
    projects.push(project);
    await project.init();
    stacks.push({ kind, project });
  }
  samples = await runRounds({ stacks, commands: COMMANDS, rounds: ROUNDS, emu, log });
  starts = await measureStarts();
} finally {
  loadRange = load.stop();
  await destroyAll(projects, FLAGS);
  pkg.cleanup();
  before?.cleanup();
  await emu.close();
}

/**
 * Spawn to the first line of stdout (the port a plugin serves on, which the engine waits for), of
 * each plugin as the engine starts it (its executable, an engine address as the argument), and of
 * a bare Node.js process; interleaved, medians.
 */
async function measureStarts() {
  const commands = {
    'node -e "" (bare Node.js)': [process.execPath, ["-e", 'console.log("0")']],
    "pulumi-resource-floor": [join(FLOOR_DIR, "pulumi-resource-floor"), ["127.0.0.1:9"]],
    "pulumi-resource-cms": [join(pluginBin, "pulumi-resource-cms"), ["127.0.0.1:9"]],
    ...(beforeBin && { "pulumi-resource-cms (BENCH_BEFORE_DIR)": [join(beforeBin, "pulumi-resource-cms"), ["127.0.0.1:9"]] }),
  };
  const out = {};
  for (let i = 0; i < START_SAMPLES; i++) {
    for (const [label, [file, args]] of Object.entries(commands)) {
      out[label] ??= [];
      out[label].push(await firstLine(file, args, { ...process.env, CMS_ENDPOINT: "http://127.0.0.1:9" }));
    }
  }
  return Object.fromEntries(Object.entries(out).map(([label, ms]) => [label, median(ms)]));
}

const secs = (ms) => (ms / 1000).toFixed(2);
console.log(
  `Pulumi CLI (${binDir}), Node ${process.version}, ${os.cpus().length} cores, ${loadRange}; ${ROUNDS} rounds, medians; N = ${COUNT}; emulator with instant lifecycle\n`,
);
const header = [
  "kind",
  ...COMMANDS.flatMap((c) => [`${c.label} (s)`, `${c.label} ÷ floor`]),
  "up ÷ floor of its language",
  "the same, per round (median)",
  "API calls (up)",
  `native up within ${TARGET} × floor (the issue's target)`,
];
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
for (const kind of kinds) {
  const cells = [kind.label];
  const wallOf = (command, label) => median(samples[command][label].map((s) => s.wallMs));
  for (const command of COMMANDS) {
    const wall = wallOf(command.label, kind.label);
    cells.push(secs(wall), (wall / wallOf(command.label, "floor")).toFixed(2));
  }
  cells.push((wallOf("up", kind.label) / wallOf("up", kind.floor ?? "floor")).toFixed(2));
  // Each round's up beside its floor's in the same round: the machine's pace drifts between rounds.
  const floorUps = samples.up[kind.floor ?? "floor"];
  cells.push(median(samples.up[kind.label].map((s, i) => s.wallMs / floorUps[i].wallMs)).toFixed(3));
  cells.push(String(median(samples.up[kind.label].map((s) => s.calls))));
  const upRatio = wallOf("up", kind.label) / wallOf("up", "floor");
  cells.push(!kind.target ? "—" : `${upRatio <= TARGET ? "yes" : "no"} (${upRatio.toFixed(3)})`);
  console.log(`| ${cells.join(" | ")} |`);
}
for (const [kind, shaped] of [
  ["yaml", "floor-shaped"],
  ["ts-native", "floor-nodejs-shaped"],
]) {
  if (!samples.up[kind] || !samples.up[shaped]) continue;
  const perRound = median(samples.up[kind].map((s, i) => s.wallMs / samples.up[shaped][i].wallMs));
  console.log(`\n${kind} ÷ ${shaped} (the plugin's own share), per round (median): ${perRound.toFixed(3)}`);
}
console.log("\n| process | spawn to first line of stdout, ms (median) |");
console.log("|---|---|");
for (const [label, ms] of Object.entries(starts)) console.log(`| ${label} | ${ms.toFixed(0)} |`);

if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ samples, loads: load.loads, starts }, null, 2));
