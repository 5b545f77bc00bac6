#!/usr/bin/env node
/**
 * Emulator benchmark (`npm run bench:emulator`, after `npm run build`).
 *
 * Starts the compiled CLI as a child process (so the load generator does not share its event
 * loop), seeds clusters through the real HTTP API, then measures with autocannon:
 *   1. GET /v1/clusters?per_page=100 (a 100-item page) with 1,000 clusters: req/s and p99;
 *   2. the same with 10,000 clusters, and the `status` filter (which settles every cluster);
 *   3. the emulator's RSS with 10,000 clusters;
 *   4. writes while reads run, in memory and with `--state` (every acknowledged write fsync'd):
 *      creates/s acknowledged, and the p99 of `GET /v1/clusters/{id}` meanwhile, at 10,000 clusters;
 *   5. start-up time with a `--state` file of 10,000 and of 100,000 clusters (written directly,
 *      shaped like the seeded ones): to the listening line, and the RSS then.
 * Rate limits are raised with --rate-limits so the benchmark measures serving, not 429s.
 *
 * BENCH_BASELINE=<git ref> runs parts 4 and 5 against the build of that commit too, in the same
 * run (`git archive`, built with this checkout's node_modules), e.g. the commit before a change
 * of the state store; its state files for part 5 are JSON (format 2), which this build converts on
 * its first start (also timed).
 *
 * Besides req/s (which other load on a shared machine drags down), each run reports the
 * emulator's own CPU time per request and the req/s one fully available core would give.
 *
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32), BENCH_BASELINE,
 * BENCH_STARTUP (the part-5 sizes, default "10000,100000"; empty skips part 5).
 */
import autocannon from "autocannon";
import { execFileSync, execSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TOKEN = "bench-token-0123456789";
const ADMIN = "bench-admin-0123456789";

/**
 * The emulator's CLI in the build at `pkg`: at its package's dist/ root since it builds on
 * @pulumi-cms/contract, under dist/packages/emulator/src/ in 0.3.0, inside the provider's dist/ before.
 */
function emulatorCli(pkg) {
  return [
    join(pkg, "packages/emulator/dist/cli.js"),
    join(pkg, "packages/emulator/dist/packages/emulator/src/cli.js"),
    join(pkg, "dist/emulator/cli.js"),
  ].find((f) => existsSync(f));
}

function startServer(extra = [], pkg = root) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      emulatorCli(pkg),
      "--port",
      "0",
      "--token",
      TOKEN,
      "--admin-token",
      ADMIN,
      "--rate-limits",
      "enterprise=1000000000",
      "--provision-seconds",
      "60",
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^cms-emulator listening on (\S+)/m.exec(out);
      if (m) resolve({ child, url: m[1], startMs: performance.now() - started });
    });
    child.on("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
  });
}

async function seed(url, count, offset) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = offset + next++;
      const res = await fetch(`${url}/v1/clusters`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `bench-${i}`, control_planes: i % 2 ? 3 : 1, workers: 1 + (i % 5), node_size: "medium" }),
      });
      if (res.status !== 201) throw new Error(`seed: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

function load(url, path, seconds = SECONDS, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: url + path, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${TOKEN}` }, ...extra },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/**
 * Part 4: creates (16 connections) and reads of one cluster (16 connections) at the same time,
 * against 10,000 clusters, in memory or with `--state`. A create counts once acknowledged (201),
 * which with `--state` means fsync'd.
 */
async function writesWhileReading(label, stateFile, pkg = root) {
  const { child, url } = await startServer(stateFile ? ["--state", stateFile] : [], pkg);
  try {
    await seed(url, 10_000, 0);
    const one = await fetch(`${url}/v1/clusters?per_page=1`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
    const body = JSON.stringify({ name: "bench-write", control_planes: 1, workers: 2, node_size: "small" });
    const [writes, reads] = await Promise.all([
      load(url, "/v1/clusters", SECONDS, {
        method: "POST",
        body,
        connections: 16,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      }),
      load(url, `/v1/clusters/${one.items[0].id}`, SECONDS, { connections: 16 }),
    ]);
    return {
      mode: label,
      "creates/s acknowledged": Math.round(writes["2xx"] / SECONDS),
      "create p99 ms": writes.latency.p99,
      "reads/s meanwhile": Math.round(reads["2xx"] / SECONDS),
      "read p50 ms": reads.latency.p50,
      "read p99 ms": reads.latency.p99,
      "non-2xx": writes.non2xx + reads.non2xx,
      // The machine's, this run included (about 2 with an otherwise idle machine).
      "load avg": +loadavg()[0].toFixed(1),
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.on("exit", r));
  }
}

/** CPU seconds (user + system) the emulator process has used so far, from /proc (Linux). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/** A load run plus the emulator's own CPU use during it: capacity that other load on the machine does not hide. */
async function measure(url, path, pid) {
  const before = cpuSeconds(pid);
  const r = await load(url, path);
  r.serverCpuSeconds = cpuSeconds(pid) - before;
  return r;
}

function summary(label, r) {
  const cpuPerReq = r.serverCpuSeconds / r.requests.total;
  return {
    label,
    "req/s (mean)": Math.round(r.requests.average),
    "server CPU µs/req": Number.isFinite(cpuPerReq) ? Math.round(cpuPerReq * 1e6) : "n/a",
    "req/s per server core": Number.isFinite(cpuPerReq) ? Math.round(1 / cpuPerReq) : "n/a",
    "p50 ms": r.latency.p50,
    "p99 ms": r.latency.p99,
    "max ms": r.latency.max,
    "non-2xx": r.non2xx,
    errors: r.errors + r.timeouts,
    "MB/s": (r.throughput.average / 1e6).toFixed(1),
  };
}

async function stats(url, pid) {
  const res = await fetch(`${url}/_emulator/stats`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const s = await res.json();
  let procRss;
  try {
    procRss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
  } catch {
    procRss = s.rss_bytes;
  }
  return {
    clusters: s.clusters,
    nodes: s.nodes,
    rssMB: +(procRss / 2 ** 20).toFixed(1),
    heapUsedMB: +(s.heap_used_bytes / 2 ** 20).toFixed(1),
  };
}

const { child, url } = await startServer();
try {
  const rows = [];
  await seed(url, 1000, 0);
  await load(url, "/v1/clusters?per_page=100", 2); // warm-up (JIT)
  const page = await fetch(`${url}/v1/clusters?per_page=100&page=3`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) =>
    r.json(),
  );
  if (page.items.length !== 100 || page.total !== 1000) throw new Error("unexpected list page");
  rows.push(
    summary("GET /v1/clusters?per_page=100&page=3, 1,000 clusters", await measure(url, "/v1/clusters?per_page=100&page=3", child.pid)),
  );
  const mem1k = await stats(url, child.pid);

  await seed(url, 9000, 1000);
  rows.push(
    summary("GET /v1/clusters?per_page=100&page=50, 10,000 clusters", await measure(url, "/v1/clusters?per_page=100&page=50", child.pid)),
  );
  rows.push(
    summary(
      "GET /v1/clusters?status=provisioning&per_page=100, 10,000 clusters",
      await measure(url, "/v1/clusters?status=provisioning&per_page=100", child.pid),
    ),
  );
  const mem10k = await stats(url, child.pid);

  const os = await import("node:os");
  console.log(
    `\nEmulator benchmark: ${SECONDS} s per run, ${CONNECTIONS} connections, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.table(rows);
  console.table([
    { state: "1,000 clusters", ...mem1k },
    { state: "10,000 clusters", ...mem10k },
  ]);
  const measured = rows[0]["req/s (mean)"];
  const capacity = rows[0]["req/s per server core"];
  console.log(
    `\ntargets: 100-item page with 1,000 clusters >= 5,000 req/s: measured ${measured} (${measured >= 5000 ? "met" : "NOT met"}), ` +
      `one free core ${capacity} (${capacity >= 5000 ? "met" : "NOT met"}); RSS with 10,000 clusters < 200 MB: ${mem10k.rssMB} MB (${mem10k.rssMB < 200 ? "met" : "NOT met"})`,
  );
} finally {
  child.kill("SIGTERM");
}

/** The build of `ref` in a temporary directory (this checkout's node_modules). */
function buildBaseline(ref) {
  const dir = mkdtempSync(join(tmpdir(), "cms-bench-baseline-"));
  execSync(`git -C ${JSON.stringify(root)} archive ${ref} | tar -x -C ${JSON.stringify(dir)}`);
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  // The ref's own @pulumi-cms/contract, nearer than the one this checkout's node_modules links to.
  if (existsSync(join(dir, "packages/contract"))) {
    mkdirSync(join(dir, "packages/emulator/node_modules/@pulumi-cms"), { recursive: true });
    symlinkSync(join(dir, "packages/contract"), join(dir, "packages/emulator/node_modules/@pulumi-cms/contract"));
  }
  const projects = ["packages/contract/tsconfig.json", "packages/emulator/tsconfig.json", "tsconfig.json"];
  for (const project of projects.filter((p) => existsSync(join(dir, p)))) {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], { cwd: dir, stdio: "inherit" });
  }
  return { dir, commit: execFileSync("git", ["-C", root, "rev-parse", "--short", ref], { encoding: "utf8" }).trim() };
}

/** `count` cluster records as the seeding makes them (1 or 3 control planes, 1-5 workers), just created. */
function records(count) {
  const { provisionCluster } = require(join(root, "packages/emulator/dist/model/lifecycle.js"));
  const now = Date.now();
  return Array.from({ length: count }, (_, i) =>
    provisionCluster(
      { name: `bench-${i}`, control_planes: i % 2 ? 3 : 1, workers: 1 + (i % 5), node_size: "medium", phase: "managed", infra_id: null },
      now,
      60_000,
      false,
      i,
    ),
  );
}

/** A state file of this build (SQLite), written through its store. */
async function writeStore(file, clusters) {
  const { StateStore } = require(join(root, "packages/emulator/dist/store/database.js"));
  const { store } = await StateStore.open(file, { cluster: () => undefined, creating: () => false });
  for (let i = 0; i < clusters.length; i += 10_000) await store.write({ put: clusters.slice(i, i + 10_000) });
  await store.close();
}

/** A JSON state of format 2 (the store before SQLite): a snapshot and no journal. */
async function writeJsonState(file, clusters) {
  const out = createWriteStream(file);
  out.write(`{"version":2,"saved_at":"${new Date().toISOString()}","subnet_seq":${clusters.length},"seq":0,"journal":1,"clusters":[`);
  for (const [i, c] of clusters.entries()) {
    if (!out.write((i ? "," : "") + JSON.stringify(c))) await new Promise((r) => out.once("drain", r));
  }
  out.end("]}");
  await new Promise((r) => out.on("finish", r));
}

/** Part 5: time to the listening line with a state file of `count` clusters, and the RSS then. */
async function startup(count, dir, baseline) {
  const clusters = records(count);
  const rows = [];
  const measure = async (label, file, pkg) => {
    const { child, url, startMs } = await startServer(["--state", file], pkg);
    const total = await fetch(`${url}/v1/clusters?per_page=1`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
    if (total.total !== count) throw new Error(`${label}: ${total.total} clusters loaded, not ${count}`);
    const rssMB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024;
    child.kill("SIGTERM");
    await new Promise((r) => child.on("exit", r));
    rows.push({
      clusters: count.toLocaleString("en-US"),
      state: label,
      "start-up s": +(startMs / 1000).toFixed(2),
      "RSS MB": Math.round(rssMB),
      "load avg": +loadavg()[0].toFixed(1),
    });
  };
  const sqlite = join(dir, `sqlite-${count}.db`);
  await writeStore(sqlite, clusters);
  await measure("SQLite (format 3), this build", sqlite, root);
  if (baseline) {
    const json = join(dir, `json-${count}.json`);
    await writeJsonState(json, clusters);
    await measure(`JSON (format 2), ${baseline.commit}`, json, baseline.dir);
    await measure("JSON (format 2) converted on the first start, this build", json, root);
  }
  return rows;
}

const baseline = process.env.BENCH_BASELINE ? buildBaseline(process.env.BENCH_BASELINE) : undefined;
const dir = mkdtempSync(join(tmpdir(), "cms-bench-state-"));
try {
  const durability = [
    await writesWhileReading("memory only", undefined),
    await writesWhileReading("--state, SQLite (this build)", join(dir, "state.db")),
  ];
  if (baseline) durability.push(await writesWhileReading(`--state at ${baseline.commit}`, join(dir, "baseline.json"), baseline.dir));
  console.log(`\nWrites while reading, 10,000 clusters, ${SECONDS} s, 16 + 16 connections:`);
  console.table(durability);
  const sizes = (process.env.BENCH_STARTUP ?? "10000,100000").split(",").filter(Boolean).map(Number);
  if (sizes.length > 0) {
    const rows = [];
    for (const n of sizes) rows.push(...(await startup(n, dir, baseline)));
    console.log("\nStart-up with a --state file:");
    console.table(rows);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (baseline) rmSync(baseline.dir, { recursive: true, force: true });
}
