#!/usr/bin/env node
// docs/gitops.md at team scale: the wall time of BENCH_RUNNERS runners (default 8; separate
// processes, HOMEs and working copies, test/support/gitops-runners.mjs) each running the merge
// job's `pulumi up` on its own stack of BENCH_CLUSTERS clusters (default 5) at once, on one
// PostgreSQL backend (scripts/postgres) and one Community token (100 requests a minute), against
// the floors of the same work: one runner creating all RUNNERS x CLUSTERS clusters in one stack
// (on a fresh Community token), and the rate limit's (a fixed one-minute window: N calls need
// ceil(N / 100) - 1 full windows after the first) plus one provisioning. Counts every /v1 call
// the emulator answers and the 429s among them.
//
//   npm run bench:runners                 (builds first; needs the CLI: scripts/ensure-pulumi)
//   BENCH_PROVISION_SECONDS=10 npm run bench:runners
//
// Prints a Markdown table. Figures: docs/benchmarks.md.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { startPostgres } from "../scripts/lib/postgres.mjs";
import { makeRunner, mergeUp, runJob } from "../test/support/gitops-runners.mjs";
import { observeRequests, summarize } from "./lib/observer.mjs";
import { ensurePulumi, installTarball } from "./lib/pulumi.mjs";

const RUNNERS = Number(process.env.BENCH_RUNNERS ?? 8);
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 5);
const PROVISION_SECONDS = Number(process.env.BENCH_PROVISION_SECONDS ?? 5);
const { startEmulator } = await import("@pulumi-cms/emulator");
const pulumiBin = await ensurePulumi();

const work = mkdtempSync(join(os.tmpdir(), "pulumi-cms-bench-runners-"));
const pkg = installTarball();
const postgres = await startPostgres();
const emu = await startEmulator({ port: 0, provisionSeconds: PROVISION_SECONDS, scaleSeconds: 0, deleteSeconds: 0, upgradeSeconds: 0 });
const labels = new Map();
const observer = observeRequests(Number(new URL(emu.url).port), labels);

/** A fresh Community token, so that no phase spends another's budget. */
async function communityToken(label) {
  const token = `cms_bench_${randomBytes(8).toString("hex")}`;
  await emu.control.addToken({ token, permissions: ["read", "write"], scope: "*", plan: "community" });
  labels.set(token, label);
  return token;
}

try {
  const env = {
    ...process.env,
    PATH: `${pulumiBin}:${process.env.PATH}`,
    CMS_ENDPOINT: emu.url,
    PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
    PULUMI_BACKEND_URL: postgres.url,
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_UPDATE_CHECK: "1",
    NO_COLOR: "1",
  };
  delete env.PULUMI_ACCESS_TOKEN;
  const runner = (name) => makeRunner({ dir: join(work, name), installed: pkg.dir, env, project: name });
  const many = Array.from({ length: RUNNERS }, (_, i) => runner(`runner-${i}`));
  const one = runner("single");
  for (const r of [...many, one]) {
    const created = await runJob(r, "Create the stack");
    if (created.code !== 0) throw new Error(`Create the stack (${r.project}) failed:\n${created.output}`);
  }

  /** One phase: `runs` started at once; wall time from the first start to the last end. */
  async function phase(label, runs) {
    const token = await communityToken(label);
    const results = await Promise.all(runs.map(([r, extraEnv]) => mergeUp(r, { extraEnv: { ...extraEnv, CMS_TOKEN: token } })));
    for (const res of results) if (res.code !== 0) throw new Error(`${label}: ${res.command} failed:\n${res.output}`);
    const wallMs = Math.max(...results.map((r) => r.ended)) - Math.min(...results.map((r) => r.started));
    return { label, wallMs, ...summarize(observer.select(label)) };
  }

  const round = await phase(
    `${RUNNERS} runners x ${CLUSTERS} clusters`,
    many.map((r) => [r, { CLUSTERS: String(CLUSTERS) }]),
  );
  const single = await phase(`1 runner x ${RUNNERS * CLUSTERS} clusters`, [[one, { CLUSTERS: String(RUNNERS * CLUSTERS) }]]);
  const rateFloorMs = (Math.ceil(round.calls / 100) - 1) * 60_000 + PROVISION_SECONDS * 1000;

  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `\n${RUNNERS} runners on one PostgreSQL backend and one Community token; provisioning ${PROVISION_SECONDS} s; ${os.cpus().length} cores\n`,
  );
  console.log("| Phase | Wall time | API calls | 429s |");
  console.log("|---|---|---|---|");
  for (const p of [round, single]) console.log(`| ${p.label} | ${s(p.wallMs)} | ${p.calls} | ${p.r429} |`);
  console.log(
    `\nthe round: ${(round.wallMs / single.wallMs).toFixed(2)} x one runner doing the same work; ` +
      `${(round.wallMs / rateFloorMs).toFixed(2)} x the rate limit's floor for its ${round.calls} calls plus one provisioning (${s(rateFloorMs)})`,
  );
} finally {
  observer.stop();
  await emu.close();
  await postgres.stop();
  pkg.cleanup();
  rmSync(work, { recursive: true, force: true });
}
