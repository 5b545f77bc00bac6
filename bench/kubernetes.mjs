#!/usr/bin/env node
// What `cms-emulator --kubernetes` costs: etcd's start, the time from a create to a working
// kubeconfig (the cluster's kube-apiserver started and its token issued), and resident memory
// of each kube-apiserver and of etcd, for BENCH_CLUSTERS clusters (default 5) created together.
//
//   npm run bench:kubernetes        (builds first; needs kube-apiserver and etcd: packages/emulator/scripts/ensure-kubernetes)
//
// Prints a Markdown table. Figures: packages/emulator/docs/kubernetes.md.
import { readFileSync, readdirSync } from "node:fs";

const { startEmulator } = await import("@pulumi-cms/emulator");
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 5);

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
const t0 = performance.now();
const emu = await startEmulator({ port: 0, provisionSeconds: 0, kubernetes: {} });
const headers = { authorization: `Bearer ${emu.token}`, "content-type": "application/json" };
try {
  // etcd starts with the first cluster.
  const ready = await Promise.all(
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
      return performance.now() - start;
    }),
  );
  const apiservers = residentMiB("kube-apiserver");
  const etcd = residentMiB("etcd");
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`| ${CLUSTERS} clusters created together | |`);
  console.log("|---|---|");
  console.log(`| emulator start → all kubeconfigs answered | ${s(performance.now() - t0)} |`);
  console.log(`| create → kubeconfig answered, median / max | ${s(median(ready))} / ${s(Math.max(...ready))} |`);
  console.log(
    `| kube-apiserver resident memory, median / max | ${median(apiservers).toFixed(0)} / ${Math.max(...apiservers).toFixed(0)} MiB (${apiservers.length} processes) |`,
  );
  console.log(`| etcd resident memory | ${etcd.map((m) => m.toFixed(0)).join(", ")} MiB |`);
} finally {
  await emu.close();
}
