#!/usr/bin/env node
// What `cms-emulator --kubernetes` costs: the time from a create to a working kubeconfig (the
// cluster's control plane started and its token issued), then to a 2-replica Deployment rolled
// out on it (`kubectl rollout status`), and resident memory of each process of a cluster (API
// server, controller manager, scheduler, kwok) and of the shared etcd, for BENCH_CLUSTERS
// clusters (default 5) created together.
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
const PROGRAMS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "etcd"];

/** Resident memory (MiB) of every process whose command line starts with `program`. */
function residentMiB(program) {
  const out = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      if (!argv0.endsWith(`/${program}`)) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      if (rss) out.push(Number(rss) / 1024);
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
  const memory = Object.fromEntries(PROGRAMS.map((p) => [p, residentMiB(p)]));
  const perCluster = sum(PROGRAMS.filter((p) => p !== "etcd").map((p) => median(memory[p])));
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const mib = (xs) => `${median(xs).toFixed(0)} / ${Math.max(...xs).toFixed(0)} MiB`;
  console.log(`| ${CLUSTERS} clusters created together | |`);
  console.log("|---|---|");
  console.log(`| emulator start → all Deployments rolled out | ${s(performance.now() - t0)} |`);
  console.log(
    `| create → kubeconfig answered, median / max | ${s(median(timings.map((t) => t.answered)))} / ${s(Math.max(...timings.map((t) => t.answered)))} |`,
  );
  console.log(
    `| create → 2-replica Deployment rolled out, median / max | ${s(median(timings.map((t) => t.rolledOut)))} / ${s(Math.max(...timings.map((t) => t.rolledOut)))} |`,
  );
  for (const p of PROGRAMS.filter((x) => x !== "etcd")) console.log(`| ${p} resident memory, median / max | ${mib(memory[p])} |`);
  console.log(`| one cluster's processes together (medians) | ${perCluster.toFixed(0)} MiB |`);
  console.log(`| etcd resident memory (shared) | ${memory.etcd.map((m) => m.toFixed(0)).join(", ")} MiB |`);
} finally {
  await emu.close();
  rmSync(work, { recursive: true, force: true });
}
