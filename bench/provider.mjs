#!/usr/bin/env node
/**
 * Provider benchmark (`npm run bench`): how many API calls the Cluster provider spends, how soon
 * it notices that work is done, and whether a 50-cluster stack on a Community-plan token
 * (100 requests a minute) deploys without 429s, each side by side with a baseline that polls
 * every 10 s at a fixed interval (bench/lib/baseline.mjs).
 *
 * Parts (all against the in-process emulator on 127.0.0.1; every request is observed at the
 * server, see bench/lib/observer.mjs):
 *   single  one cluster created by the real Pulumi CLI, real time, BENCH_PROVISION_SECONDS
 *           provisioning: calls, and the delay between the emulator turning `running` and the
 *           provider's first GET that sees it.
 *   long    the same create with a BENCH_LONG_PROVISION_SECONDS (600) provisioning in virtual
 *           time: the provider's own create (in-process) and waiter with an injected clock, the
 *           emulator on a ManualClock; every poll is a real HTTP call.
 *   fleet   BENCH_FLEET clusters created, previewed (no-op), scaled in place and destroyed by
 *           the real Pulumi CLI (`--parallel BENCH_PARALLEL`) on a Community-plan token, with
 *           the baseline doing the same fleet on its own Community token at the same time.
 *           Failed operations, 429s, calls, wall time against the floor, peak RSS of the
 *           dynamic-provider host process (VmHWM from /proc).
 *
 * Options (env): BENCH_PARTS (single,long,fleet), BENCH_FLEET (50), BENCH_PROVISION_SECONDS (60),
 * BENCH_SCALE_SECONDS (20), BENCH_DELETE_SECONDS (10), BENCH_LONG_PROVISION_SECONDS (600),
 * BENCH_RATE (100, the Community limit), BENCH_BASELINE_INTERVAL_SECONDS (10),
 * BENCH_PARALLEL (= BENCH_FLEET), BENCH_COMMAND_TIMEOUT_MINUTES (25: each Pulumi command is
 * interrupted after this), BENCH_JSON (write the raw results there), BENCH_PACKAGE_DIR (measure
 * the built package in that directory instead of this repository's dist/).
 * Quick check: BENCH_FLEET=10 BENCH_PROVISION_SECONDS=10 BENCH_SCALE_SECONDS=5 BENCH_DELETE_SECONDS=3 npm run bench
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { observeRequests, summarize, nowMs } from "./lib/observer.mjs";
import { createProject, ensurePulumi, snapshotPackage } from "./lib/pulumi.mjs";
import { allSettled, fixedPoller } from "./lib/baseline.mjs";

const require = createRequire(import.meta.url);
// Everything runs from a private copy of dist/ (see snapshotPackage).
const pkg = snapshotPackage(process.env.BENCH_PACKAGE_DIR || undefined);
const root = pkg.dir;
const { startEmulator, ManualClock } = require("@pulumi-cms/emulator");

const num = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got ${JSON.stringify(v)}`);
  return n;
};
const P = {
  parts: (process.env.BENCH_PARTS ?? "single,long,fleet")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  fleet: Math.max(1, Math.floor(num("BENCH_FLEET", 50))),
  provisionSeconds: num("BENCH_PROVISION_SECONDS", 60),
  scaleSeconds: num("BENCH_SCALE_SECONDS", 20),
  deleteSeconds: num("BENCH_DELETE_SECONDS", 10),
  longProvisionSeconds: num("BENCH_LONG_PROVISION_SECONDS", 600),
  rate: Math.max(1, Math.floor(num("BENCH_RATE", 100))),
  intervalSeconds: num("BENCH_BASELINE_INTERVAL_SECONDS", 10),
  commandTimeoutMs: num("BENCH_COMMAND_TIMEOUT_MINUTES", 25) * 60_000,
};
P.parallel = Math.max(1, Math.floor(num("BENCH_PARALLEL", P.fleet)));

const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
const secs = (ms) => (ms === undefined || ms === null || Number.isNaN(ms) ? "–" : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);
const ratio = (a, b) => (b ? (a / b).toFixed(2) : "–");
const mb = (b) => (b === undefined ? "–" : `${(b / 1024 / 1024).toFixed(0)} MB`);
const newToken = (label) => `bench_${label}_${randomBytes(12).toString("hex")}`;
const tokenSpec = (token, plan) => ({ token, permissions: ["read", "write"], scope: "*", plan });

/** The GET that first saw `running`: the first GET of the cluster that started at or after `readyAt`. */
function noticeOf(requests, id, readyAt) {
  const get = requests.find((r) => r.route === "GET /v1/clusters/:cluster_id" && r.id === id && r.start >= readyAt && r.status === 200);
  return get ? { at: get.end, delayMs: get.end - readyAt } : undefined;
}

/** The cluster a label created: the id of its first request naming a cluster. */
const firstId = (requests) => requests.find((r) => r.id)?.id;

// ------------------------------------------------------------------------------------ single

async function benchSingle() {
  const provTok = newToken("single_provider");
  const baseTok = newToken("single_baseline");
  const emu = await startEmulator({
    port: 0,
    provisionSeconds: P.provisionSeconds,
    tokens: [tokenSpec(provTok, "enterprise"), tokenSpec(baseTok, "enterprise")],
  });
  const obs = observeRequests(
    Number(new URL(emu.url).port),
    new Map([
      [provTok, "provider"],
      [baseTok, "baseline"],
    ]),
  );
  const project = await createProject({
    pkgDir: root,
    name: "cms-bench-single",
    env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: provTok, CMS_BENCH_COUNT: "1", CMS_BENCH_WORKERS: "1" },
  });
  try {
    await project.init();
    log(`single create: ${P.provisionSeconds} s provisioning, provider (pulumi up) and fixed ${P.intervalSeconds} s baseline side by side`);
    const poller = fixedPoller({ pkgDir: root, endpoint: emu.url, token: baseTok, intervalMs: P.intervalSeconds * 1000 });
    const [cli, base] = await Promise.all([
      project.run(["up", "--yes", "--skip-preview"], {}, { timeoutMs: P.commandTimeoutMs }),
      poller.create({ name: "base-single", control_planes: 1, workers: 1, node_size: "small" }).then(
        (id) => ({ id }),
        (e) => ({ error: String(e?.message ?? e) }),
      ),
    ]);
    const clusters = await emu.control.clusters();
    const readyAtOf = (id) => {
      const c = clusters.find((x) => x.id === id);
      return c ? Date.parse(c.created_at) + P.provisionSeconds * 1000 : undefined;
    };
    const side = (label, ok) => {
      const reqs = obs.select(label);
      const id = firstId(reqs);
      const readyAt = id && readyAtOf(id);
      const notice = readyAt ? noticeOf(reqs, id, readyAt) : undefined;
      return { ok, id, ...summarize(reqs), noticeDelayMs: notice?.delayMs };
    };
    const provider = side("provider", cli.code === 0);
    provider.wallMs = cli.wallMs;
    provider.peakRssBytes = cli.providerPeakRssBytes;
    if (cli.code !== 0) provider.error = cli.output.slice(-2000);
    const baseline = side("baseline", !base.error);
    if (base.error) baseline.error = base.error;
    return { provisionSeconds: P.provisionSeconds, provider, baseline };
  } finally {
    obs.stop();
    project.cleanup();
    await emu.close();
  }
}

// -------------------------------------------------------------------------------------- long

async function benchLong() {
  const cp = require(`${root}/dist/provider/cluster-provider.js`);
  const { newHostRuntime } = require(`${root}/dist/hosts/process.js`);
  const { pollInstants, DEFAULT_POLL_SCHEDULE } = require(`${root}/dist/provider/polling/schedule.js`);
  const provTok = newToken("long_provider");
  const baseTok = newToken("long_baseline");
  const clock = new ManualClock(Date.now());
  const emu = await startEmulator({
    port: 0,
    clock,
    provisionSeconds: P.longProvisionSeconds,
    tokens: [tokenSpec(provTok, "enterprise"), tokenSpec(baseTok, "enterprise")],
  });
  const obs = observeRequests(
    Number(new URL(emu.url).port),
    new Map([
      [provTok, "provider"],
      [baseTok, "baseline"],
    ]),
  );
  const durationMs = P.longProvisionSeconds * 1000;
  const readyAtOf = async (id) => {
    const c = (await emu.control.clusters()).find((x) => x.id === id);
    return Date.parse(c.created_at) + durationMs;
  };
  const settings = { env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: provTok }, clock };
  const inputs = (name) => ({
    name,
    controlPlanes: 1,
    workers: 1,
    nodeSize: "small",
    phase: "managed",
    __urn: `urn:pulumi:bench::cms-bench::pulumi-nodejs:dynamic/cms:Cluster::${name}`,
    __provider: "exports.handler = undefined;",
  });
  const runProvider = async (name, withProgress) => {
    // A runtime of its own, as a fresh host's: its limiter knows nothing yet. In `pulumi up` the
    // provider runs in the engine's dynamic-provider host, where progress lines are on (and the
    // waiter lists nodes for them); here a sink that drops the lines stands in for the engine.
    const runtime = newHostRuntime({ ...settings, progressSink: withProgress ? { report: () => undefined } : undefined });
    const provider = cp.createClusterProvider(undefined, runtime);
    const since = nowMs();
    const res = await provider.create(inputs(name));
    const noticedAt = clock.now(); // the kubeconfig GET after the noticing poll takes no virtual time
    const reqs = obs.select("provider", since);
    return { ...summarize(reqs), noticeDelayMs: noticedAt - (await readyAtOf(res.id)) };
  };
  try {
    log(`long create: ${P.longProvisionSeconds} s provisioning in virtual time (injected clock), provider then baseline`);
    const withProgress = await runProvider("long-progress", true);
    const withoutProgress = await runProvider("long-quiet", false);
    const poller = fixedPoller({
      pkgDir: root,
      endpoint: emu.url,
      token: baseTok,
      intervalMs: P.intervalSeconds * 1000,
      clock,
      maxPolls: 100_000,
    });
    const since = nowMs();
    const id = await poller.create({ name: "long-base", control_planes: 1, workers: 1, node_size: "small" });
    const baseline = { ...summarize(obs.select("baseline", since)), noticeDelayMs: clock.now() - (await readyAtOf(id)) };
    // The pure schedule function, as a cross-check of the polls (POST and kubeconfig excluded).
    const schedulePolls = pollInstants(durationMs, DEFAULT_POLL_SCHEDULE, true).length;
    return {
      provisionSeconds: P.longProvisionSeconds,
      clock: "injected (virtual)",
      withProgress,
      withoutProgress,
      baseline,
      schedulePolls,
      tradeOff: scheduleTradeOff(pollInstants, DEFAULT_POLL_SCHEDULE, durationMs),
    };
  } finally {
    obs.stop();
    await emu.close();
  }
}

/**
 * What a status-blind schedule can promise. For polls at t1 < t2 < ..., a cluster that turns
 * `running` just after t_i is seen at t_(i+1): the worst lateness for a wait of about t_i is
 * t_(i+1) - t_i. Returns, for the provider's schedule and variants with a larger fraction, the
 * polls a `durationMs` wait costs and the worst lateness as a share of the wait until noticed
 * (t_(i+1), past 20 s where the 2 s floor stops mattering), plus the fewest polls ANY blind
 * schedule needs to keep lateness within max(2 s, 10 % of the wait) for every wait up to
 * `durationMs`.
 */
function scheduleTradeOff(pollInstants, base, durationMs) {
  const variants = [base.fraction, 0.25, 0.5, 1].map((fraction) => {
    const schedule = { ...base, fraction };
    const t = pollInstants(durationMs, schedule, true);
    let worst = 0;
    for (let i = 0; i + 1 < t.length; i++) {
      if (t[i] >= 20_000) worst = Math.max(worst, (t[i + 1] - t[i]) / t[i + 1]);
    }
    // + the POST and the kubeconfig.
    return { fraction, polls: t.length, calls: t.length + 2, worstLateShare: worst };
  });
  // Greedy is optimal: each next poll as late as the promise allows for a change just after the
  // last one, i.e. t' - t <= max(2 s, 10 % of t', the whole wait until it is noticed).
  let polls = 0;
  for (let t = 0; t < durationMs; polls++) t = Math.max(t + 2_000, t / 0.9);
  return { variants, minBlindPolls: polls, minBlindCalls: polls + 2 };
}

// ------------------------------------------------------------------------------------- fleet

/** Floor of a phase: the larger of the operation's duration and the minimum calls ÷ the rate. */
const floorMs = (durationSeconds, calls) => Math.max(durationSeconds * 1000, (calls / P.rate) * 60_000);

async function benchFleet() {
  const N = P.fleet;
  const provTok = newToken("fleet_provider");
  const baseTok = newToken("fleet_baseline");
  const emu = await startEmulator({
    port: 0,
    provisionSeconds: P.provisionSeconds,
    scaleSeconds: P.scaleSeconds,
    deleteSeconds: P.deleteSeconds,
    planLimits: { community: P.rate },
    tokens: [tokenSpec(provTok, "community"), tokenSpec(baseTok, "community")],
  });
  const obs = observeRequests(
    Number(new URL(emu.url).port),
    new Map([
      [provTok, "provider"],
      [baseTok, "baseline"],
    ]),
  );
  const project = await createProject({
    pkgDir: root,
    name: "cms-bench-fleet",
    env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: provTok, CMS_BENCH_COUNT: String(N), CMS_BENCH_WORKERS: "1" },
  });
  const poller = fixedPoller({ pkgDir: root, endpoint: emu.url, token: baseTok, intervalMs: P.intervalSeconds * 1000 });
  const byPrefix = async (prefix) => (await emu.control.clusters()).filter((c) => c.name.startsWith(prefix));
  const cliOpts = { timeoutMs: P.commandTimeoutMs };
  const par = ["--parallel", String(P.parallel)];
  const phases = [];
  let baseIds = [];

  /** One phase: the CLI command and the baseline's operations at the same time. */
  const phase = async (name, args, workers, baselineOp, minCallsPerCluster, durationSeconds, check) => {
    log(`fleet ${name}: pulumi ${args.join(" ")} and the baseline's ${N} operations`);
    const since = nowMs();
    const [cli, base] = await Promise.all([
      project.run(args, { CMS_BENCH_WORKERS: String(workers) }, cliOpts),
      (async () => {
        const t0 = nowMs();
        const r = baselineOp ? await baselineOp() : { failures: [] };
        return { ...r, wallMs: nowMs() - t0 };
      })(),
    ]);
    const until = nowMs() + 1;
    const side = (label) => {
      const reqs = obs.select(label, since, until);
      const s = summarize(reqs);
      const span = reqs.length ? Math.max(...reqs.map((r) => r.end)) - Math.min(...reqs.map((r) => r.start)) : 0;
      return { ...s, apiSpanMs: span };
    };
    const state = await check();
    const provider = {
      ...side("provider"),
      wallMs: cli.wallMs,
      exitCode: cli.code,
      timedOut: cli.timedOut,
      failedOps: cli.json?.failedOps?.length ?? 0,
      errors: (cli.json?.errors ?? []).slice(0, 5),
      peakRssBytes: cli.providerPeakRssBytes,
      stateOk: state.provider,
    };
    if (cli.code !== 0 && !cli.json?.errors?.length) provider.errors = [cli.stderr.slice(-1500) || cli.output.slice(-1500)];
    const baseline = {
      ...side("baseline"),
      wallMs: base.wallMs,
      failedOps: base.failures.length,
      errors: base.failures.slice(0, 5),
      stateOk: state.baseline,
    };
    const minCalls = minCallsPerCluster * N;
    const result = { name, command: `pulumi ${args.join(" ")}`, minCalls, floorMs: floorMs(durationSeconds, minCalls), provider, baseline };
    phases.push(result);
    log(
      `fleet ${name}: provider ${provider.calls} calls, ${provider.r429} × 429, ${provider.failedOps} failed, ${secs(provider.wallMs)}; ` +
        `baseline ${baseline.calls} calls, ${baseline.r429} × 429, ${baseline.failedOps} failed, ${secs(baseline.wallMs)}`,
    );
    return result;
  };

  try {
    await project.init();
    await phase(
      "create",
      ["up", "--yes", "--skip-preview", ...par],
      1,
      async () => {
        const r = await allSettled([...Array(N).keys()], (i) =>
          poller.create({ name: `base-${i}`, control_planes: 1, workers: 1, node_size: "small" }),
        );
        baseIds = r.results.filter(Boolean);
        return r;
      },
      3,
      P.provisionSeconds,
      async () => ({
        provider: (await byPrefix("bench-")).filter((c) => c.status === "running" && c.workers === 1).length === N,
        baseline: (await byPrefix("base-")).filter((c) => c.status === "running" && c.workers === 1).length === N,
      }),
    );

    // No-op preview of the whole stack: nothing changed, so no API call should be needed.
    log(`fleet preview: pulumi preview of the ${N}-cluster stack, nothing changed`);
    const since = nowMs();
    const pv = await project.run(["preview", ...par], { CMS_BENCH_WORKERS: "1" }, { timeoutMs: P.commandTimeoutMs });
    const steps = pv.json?.steps ?? [];
    const preview = {
      command: `pulumi preview ${par.join(" ")}`,
      ...summarize(obs.select("provider", since, nowMs() + 1)),
      wallMs: pv.wallMs,
      exitCode: pv.code,
      changes: steps.filter((s) => s.op !== "same").length,
      peakRssBytes: pv.providerPeakRssBytes,
    };
    log(`fleet preview: ${preview.calls} calls, ${secs(preview.wallMs)}, ${preview.changes} changes`);

    await phase(
      "scale",
      ["up", "--yes", "--skip-preview", ...par],
      2,
      () => allSettled(baseIds, (id) => poller.update(id, { workers: 2 })),
      2,
      P.scaleSeconds,
      async () => ({
        provider: (await byPrefix("bench-")).filter((c) => c.status === "running" && c.workers === 2).length === N,
        baseline: (await byPrefix("base-")).filter((c) => c.status === "running" && c.workers === 2).length === N,
      }),
    );
    await phase(
      "destroy",
      ["destroy", "--yes", "--skip-preview", ...par],
      2,
      () => allSettled(baseIds, (id) => poller.destroy(id)),
      2,
      P.deleteSeconds,
      async () => ({ provider: (await byPrefix("bench-")).length === 0, baseline: (await byPrefix("base-")).length === 0 }),
    );
    const total = (side) => ({
      calls: phases.reduce((a, p) => a + p[side].calls, 0),
      r429: phases.reduce((a, p) => a + p[side].r429, 0),
      failedOps: phases.reduce((a, p) => a + p[side].failedOps, 0),
      wallMs: phases.reduce((a, p) => a + p[side].wallMs, 0),
      apiSpanMs: phases.reduce((a, p) => a + p[side].apiSpanMs, 0),
      stateOk: phases.every((p) => p[side].stateOk),
      peakRssBytes:
        side === "provider"
          ? Math.max(0, ...phases.map((p) => p.provider.peakRssBytes ?? 0), preview.peakRssBytes ?? 0) || undefined
          : undefined,
    });
    return {
      fleet: N,
      rate: P.rate,
      parallel: P.parallel,
      timings: { provisionSeconds: P.provisionSeconds, scaleSeconds: P.scaleSeconds, deleteSeconds: P.deleteSeconds },
      phases,
      preview,
      floorMs: phases.reduce((a, p) => a + p.floorMs, 0),
      provider: total("provider"),
      baseline: total("baseline"),
    };
  } finally {
    obs.stop();
    project.cleanup();
    await emu.close();
  }
}

// ------------------------------------------------------------------------------------ report

const verdict = (ok) => (ok ? "met" : "**missed**");

function report(r) {
  const out = [];
  const p = (s = "") => out.push(s);
  p(`Code: ${r.code}.`);
  p(
    `Run: ${new Date().toISOString()}, ${os.cpus().length} cores, Node ${process.versions.node}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} at the end.`,
  );
  p();
  if (r.single) {
    const { provider: a, baseline: b } = r.single;
    const allowed = Math.max(2000, 0.1 * r.single.provisionSeconds * 1000);
    p(`#### 1. Single create, ${r.single.provisionSeconds} s provisioning, real time (\`pulumi up\` of one cluster)`);
    p();
    p(`| | provider | fixed ${P.intervalSeconds} s baseline | provider ÷ baseline |`);
    p("|---|---|---|---|");
    p(`| API calls | ${a.calls} | ${b.calls} | ${ratio(a.calls, b.calls)} |`);
    p(`| by route | ${routes(a.byRoute)} | ${routes(b.byRoute)} | |`);
    p(`| \`running\` noticed after | ${secs(a.noticeDelayMs)} | ${secs(b.noticeDelayMs)} | ${ratio(a.noticeDelayMs, b.noticeDelayMs)} |`);
    p(`| 429 responses | ${a.r429} | ${b.r429} | |`);
    p(`| succeeded | ${a.ok ? "yes" : "no"} | ${b.ok ? "yes" : "no"} | |`);
    p();
    p(
      `The fixed poller's delay depends on where \`running\` falls between its polls: they come every ${P.intervalSeconds} s from the POST, ` +
        `so with a provisioning that is a multiple of ${P.intervalSeconds} s it polls just after; its worst case is ${P.intervalSeconds} s.`,
    );
    p();
    p(
      `Goal: noticed within max(2 s, 10 % of the wait) = ${secs(allowed)}: ${verdict(a.noticeDelayMs !== undefined && a.noticeDelayMs <= allowed)} (${secs(a.noticeDelayMs)}).`,
    );
    p();
  }
  if (r.long) {
    const L = r.long;
    const a = L.withProgress;
    const q = L.withoutProgress;
    const b = L.baseline;
    const allowed = Math.max(2000, 0.1 * L.provisionSeconds * 1000);
    p(
      `#### 1b. Single create, ${L.provisionSeconds / 60}-minute provisioning, virtual time (injected clock; provider's create and waiter in-process, real HTTP)`,
    );
    p();
    p(
      `| | provider, progress lines on (as under \`pulumi up\`) | provider, progress lines off | fixed ${P.intervalSeconds} s baseline | provider (on) ÷ baseline |`,
    );
    p("|---|---|---|---|---|");
    p(`| API calls | ${a.calls} | ${q.calls} | ${b.calls} | ${ratio(a.calls, b.calls)} |`);
    p(`| by route | ${routes(a.byRoute)} | ${routes(q.byRoute)} | ${routes(b.byRoute)} | |`);
    p(`| \`running\` noticed after | ${secs(a.noticeDelayMs)} | ${secs(q.noticeDelayMs)} | ${secs(b.noticeDelayMs)} | |`);
    p();
    p(
      `Pure schedule function cross-check: \`pollInstants(${L.provisionSeconds * 1000}, DEFAULT_POLL_SCHEDULE, true)\` has ${L.schedulePolls} polls, ` +
        `the early one made when the POST is answered included (+ POST + kubeconfig = ${L.schedulePolls + 2} calls).`,
    );
    p();
    const T = L.tradeOff;
    p(
      `Why: a schedule that only sees the status cannot know when provisioning will end, so to notice within max(2 s, 10 % of the wait) for ` +
        `every possible duration each poll must follow the previous one within max(2 s, 10 % of the time waited by then). The fewest polls that keep that promise ` +
        `for every wait up to ${L.provisionSeconds / 60} minutes is ${T.minBlindPolls} (${T.minBlindCalls} calls with the POST and the kubeconfig), ` +
        `so "at most 20 calls" and "within 10 %" cannot both hold for a blind schedule. The provider's early poll (at once, to catch a service that is done ` +
        `when it answers) takes the first poll's place, so a change in the first second is seen at 3 s. Trade-off of the provider's schedule ` +
        `(\`nextPollDelay\`: the first poll at 1 s, then elapsed × fraction, 2–60 s), from \`pollInstants\`:`,
    );
    p();
    p("| fraction | calls for the wait | worst lateness (share of the wait until noticed, waits > 20 s) |");
    p("|---|---|---|");
    for (const v of T.variants)
      p(
        `| ${v.fraction.toFixed(3)}${v.fraction === T.variants[0].fraction ? " (current)" : ""} | ${v.calls} | ${(100 * v.worstLateShare).toFixed(0)} % |`,
      );
    p();
    p(
      `Goal: at most 20 calls: ${verdict(a.calls <= 20)} (${a.calls} with progress lines, ${q.calls} without); ` +
        `noticed within ${secs(allowed)}: ${verdict(a.noticeDelayMs <= allowed && q.noticeDelayMs <= allowed)}.`,
    );
    p();
  }
  if (r.fleet) {
    const F = r.fleet;
    const a = F.provider;
    const b = F.baseline;
    p(
      `#### 2. Fleet: ${F.fleet} clusters on a Community token (${F.rate} requests/min), \`--parallel ${F.parallel}\`; ` +
        `provisioning ${F.timings.provisionSeconds} s, scaling ${F.timings.scaleSeconds} s, delete ${F.timings.deleteSeconds} s`,
    );
    p();
    p(`| | provider (Pulumi CLI) | fixed ${P.intervalSeconds} s baseline | provider ÷ baseline |`);
    p("|---|---|---|---|");
    p(`| failed operations | ${a.failedOps} | ${b.failedOps} | |`);
    p(`| 429 responses | ${a.r429} | ${b.r429} | |`);
    p(`| API calls | ${a.calls} | ${b.calls} | ${ratio(a.calls, b.calls)} |`);
    p(`| wall time (create + scale + destroy) | ${secs(a.wallMs)} | ${secs(b.wallMs)} | ${ratio(a.wallMs, b.wallMs)} |`);
    p(`| floor | ${secs(F.floorMs)} | ${secs(F.floorMs)} | |`);
    p(`| wall time ÷ floor | ${ratio(a.wallMs, F.floorMs)} | ${ratio(b.wallMs, F.floorMs)} | |`);
    p(`| first-to-last API call, summed over phases | ${secs(a.apiSpanMs)} | ${secs(b.apiSpanMs)} | |`);
    p(`| end state as declared | ${a.stateOk ? "yes" : "no"} | ${b.stateOk ? "yes" : "no"} | |`);
    p(`| \`pulumi\` exit codes (create, scale, destroy) | ${F.phases.map((ph) => ph.provider.exitCode).join(", ")} | | |`);
    p();
    p("| phase | floor (min calls) | provider: wall, API span, calls, 429s, failed | baseline: wall, calls, 429s, failed |");
    p("|---|---|---|---|");
    for (const ph of F.phases) {
      const x = ph.provider;
      const y = ph.baseline;
      p(
        `| ${ph.name} | ${secs(ph.floorMs)} (${ph.minCalls}) | ${secs(x.wallMs)}, ${secs(x.apiSpanMs)}, ${x.calls} (${routes(x.byRoute)}), ${x.r429}, ${x.failedOps} | ` +
          `${secs(y.wallMs)}, ${y.calls} (${routes(y.byRoute)}), ${y.r429}, ${y.failedOps} |`,
      );
    }
    p();
    p(
      `Goals: 0 failures ${verdict(a.failedOps === 0 && a.stateOk && F.phases.every((ph) => ph.provider.exitCode === 0))}; 0 responses 429 ${verdict(a.r429 === 0)} (${a.r429}); ` +
        `wall time within 1.15 × floor ${verdict(a.wallMs <= 1.15 * F.floorMs)} (${ratio(a.wallMs, F.floorMs)} ×).`,
    );
    const errs = F.phases.flatMap((ph) => ph.provider.errors.map((e) => `${ph.name}: ${e}`));
    if (errs.length)
      p(
        `\nProvider errors (first ones): ${errs
          .slice(0, 3)
          .map((e) => `\`${e.replace(/\s+/g, " ").slice(0, 300)}\``)
          .join("; ")}`,
      );
    p();
    const v = F.preview;
    p(`#### 3. No-op preview of the ${F.fleet}-cluster stack`);
    p();
    p(`| API calls | wall time | changes shown |`);
    p("|---|---|---|");
    p(`| ${v.calls} | ${secs(v.wallMs)} | ${v.changes} |`);
    p();
    p(`Goal: 0 API calls: ${verdict(v.calls === 0)}.`);
    p();
    p(`#### 4. Provider process`);
    p();
    p(
      `Peak RSS of the dynamic-provider host (\`node …/cmd/dynamic-provider\`, VmHWM sampled every 200 ms) over the fleet commands: ` +
        `${mb(a.peakRssBytes)} (create ${mb(F.phases[0]?.provider.peakRssBytes)}, preview ${mb(v.peakRssBytes)}, scale ${mb(F.phases[1]?.provider.peakRssBytes)}, destroy ${mb(F.phases[2]?.provider.peakRssBytes)}).`,
    );
    p();
  }
  return out.join("\n");
}

/** `GET /v1/clusters/:cluster_id/nodes` → `GET {id}/nodes`; the list is `GET list`, the create `POST`. */
const routeName = (route) => {
  const [method, path] = route.split(" ");
  if (path === "/v1/clusters") return method === "GET" ? "GET list" : method;
  return `${method} ${path.replace("/v1/clusters/:cluster_id", "{id}").replace(":node_id", "{node}")}`;
};
const routes = (byRoute) =>
  Object.entries(byRoute ?? {})
    .map(([route, n]) => `${routeName(route)} ${n}`)
    .join(", ");

// -------------------------------------------------------------------------------------- main

/** The commit measured, and whether src/ differed from it when dist/ was copied. */
function codeVersion() {
  if (process.env.BENCH_PACKAGE_DIR) return `the package built in ${process.env.BENCH_PACKAGE_DIR}`;
  const git = (...args) => execFileSync("git", args, { cwd: new URL("..", import.meta.url), encoding: "utf8" }).trim();
  try {
    const dirty = git("status", "--porcelain", "--", "src") !== "";
    return `commit ${git("rev-parse", "--short", "HEAD")}${dirty ? " with uncommitted changes in src/" : ""}`;
  } catch {
    return "unknown commit";
  }
}

async function main() {
  log(`parameters: ${JSON.stringify(P)}`);
  const results = { parameters: P, code: codeVersion() };
  const needCli = P.parts.includes("single") || P.parts.includes("fleet");
  if (needCli) await ensurePulumi();
  if (P.parts.includes("single")) results.single = await benchSingle();
  if (P.parts.includes("long")) results.long = await benchLong();
  if (P.parts.includes("fleet")) results.fleet = await benchFleet();
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  console.log(report(results));
}

// Bounded: every Pulumi command has its own timeout; this is the backstop for the whole run.
const overall = setTimeout(
  () => {
    console.error("bench: overall time limit reached, stopping");
    pkg.cleanup();
    process.exit(2);
  },
  4 * P.commandTimeoutMs + 30 * 60_000,
);
overall.unref();

main().then(
  () => {
    pkg.cleanup();
    process.exit(0);
  },
  (e) => {
    console.error(e);
    pkg.cleanup();
    process.exit(1);
  },
);
