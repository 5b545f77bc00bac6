#!/usr/bin/env node
// What `cms-emulator --kubernetes` costs: the time from a create to a working kubeconfig (the
// cluster's control plane started and its token issued), then to a 2-replica Deployment rolled
// out on it (`kubectl rollout status`), and the memory of each process of a cluster (API server,
// controller manager, scheduler, kwok) and of the shared etcd, resident (RSS) and proportional
// (PSS), for BENCH_CLUSTERS clusters (default 5) created together, read BENCH_SETTLE_SECONDS
// (default 0) after the last rollout.
//
//   npm run bench:kubernetes        (builds first; needs the binaries of packages/emulator/scripts/ensure-kubernetes, and kubectl)
//
// Prints a Markdown table. Figures: docs/benchmarks.md.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const { startEmulator } = await import("@pulumi-cms/emulator");
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 5);
/** Seconds to wait after the last rollout before memory is read (default 0: at once). */
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 0);
const PROGRAMS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "etcd"];

/** The pids of this process's descendants (so that another emulator on the machine is not counted). */
function descendants() {
  const children = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = readFileSync(`/proc/${pid}/stat`, "utf8")
        .replace(/^.*\) /s, "")
        .split(" ")[1];
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // exited meanwhile
    }
  }
  const out = [];
  const walk = (pid) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(String(process.pid));
  return out;
}

/**
 * Memory (MiB) of every descendant whose command line starts with `program`: resident (RSS), and
 * proportional (PSS: pages shared with other processes, such as the text of the same binary run
 * by every cluster, divided among them; the sum over all processes is what they take together).
 */
function memoryMiB(program) {
  const out = [];
  for (const pid of descendants()) {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      if (!argv0.endsWith(`/${program}`)) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? Number.NaN);
      out.push({ rss: kb("Rss") / 1024, pss: kb("Pss") / 1024 });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const work = mkdtempSync(join(tmpdir(), "cms-bench-kubernetes-"));
const t0 = performance.now();
const emu = await startEmulator({ port: 0, provisionSeconds: 0, kubernetes: {} });
const headers = { authorization: `Bearer ${emu.token}`, "content-type": "application/json" };
try {
  const timings = await Promise.all(
    Array.from({ length: CLUSTERS }, async (_, i) => {
      const start = performance.now();
      const res = await fetch(`${emu.url}/v1/clusters`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: `bench-${i}`, control_planes: 1, workers: 2, node_size: "small" }),
      });
      const { id } = await res.json();
      const kc = await fetch(`${emu.url}/v1/clusters/${id}/kubeconfig`, { headers });
      if (kc.status !== 200) throw new Error(`kubeconfig of ${id}: ${kc.status} ${await kc.text()}`);
      const kubeconfig = join(work, id);
      writeFileSync(kubeconfig, await kc.text());
      const answered = performance.now() - start;
      const kubectl = (...args) => run("kubectl", ["--kubeconfig", kubeconfig, ...args]);
      await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=2");
      await kubectl("rollout", "status", "deployment/web", "--timeout=120s");
      return { answered, rolledOut: performance.now() - start };
    }),
  );
  if (SETTLE_SECONDS > 0) await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
  const memory = Object.fromEntries(PROGRAMS.map((p) => [p, memoryMiB(p)]));
  const of = (p, k) => memory[p].map((m) => m[k]);
  const perCluster = (k) => sum(PROGRAMS.filter((p) => p !== "etcd").map((p) => median(of(p, k))));
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const mib = (p) =>
    `${median(of(p, "rss")).toFixed(0)} / ${Math.max(...of(p, "rss")).toFixed(0)} MiB | ${median(of(p, "pss")).toFixed(0)} / ${Math.max(...of(p, "pss")).toFixed(0)} MiB`;
  console.log(`| ${CLUSTERS} clusters created together${SETTLE_SECONDS > 0 ? `, memory ${SETTLE_SECONDS} s after` : ""} | | |`);
  console.log("|---|---|---|");
  console.log(`| emulator start → all Deployments rolled out | ${s(performance.now() - t0)} | |`);
  console.log(
    `| create → kubeconfig answered, median / max | ${s(median(timings.map((t) => t.answered)))} / ${s(Math.max(...timings.map((t) => t.answered)))} | |`,
  );
  console.log(
    `| create → 2-replica Deployment rolled out, median / max | ${s(median(timings.map((t) => t.rolledOut)))} / ${s(Math.max(...timings.map((t) => t.rolledOut)))} | |`,
  );
  console.log("| memory | resident (RSS), median / max | proportional (PSS), median / max |");
  for (const p of PROGRAMS.filter((x) => x !== "etcd")) console.log(`| ${p} | ${mib(p)} |`);
  console.log(`| one cluster's processes together (medians) | ${perCluster("rss").toFixed(0)} MiB | ${perCluster("pss").toFixed(0)} MiB |`);
  console.log(`| etcd (shared) | ${of("etcd", "rss")[0]?.toFixed(0)} MiB | ${of("etcd", "pss")[0]?.toFixed(0)} MiB |`);
} finally {
  await emu.close();
  rmSync(work, { recursive: true, force: true });
}
