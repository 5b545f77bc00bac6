#!/usr/bin/env node
// docs/gitops.md's fault matrix: test/e2e/docs/gitops-faults.test.ts (the merge job's `cms-gitops
// merge` on 8 runners with their own HOMEs and working copies, one PostgreSQL backend, one
// Community token), and for each fault the time from the round's start to the moment every stack
// holds exactly its clusters, against the same round without a fault. Every round of the file,
// also those CI leaves out (FAULT_MATRIX=full). The suite's assertions hold here too: a run that
// does not converge fails the benchmark.
//
//   npm run bench:faults                  (builds first; needs the CLI: scripts/ensure-pulumi)
//
// Prints a Markdown table. Figures: docs/benchmarks.md.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/lib/pulumi-driver.mjs";
import { ensurePulumi } from "./lib/pulumi.mjs";

const pulumiBin = await ensurePulumi();
const work = mkdtempSync(join(os.tmpdir(), "pulumi-cms-bench-faults-"));
const report = join(work, "report.json");
try {
  const started = Date.now();
  const r = spawnSync("npx", ["vitest", "run", "test/e2e/docs/gitops-faults.test.ts"], {
    cwd: REPO_ROOT,
    stdio: "inherit",
    env: {
      ...process.env,
      PATH: `${pulumiBin}:${process.env.PATH}`,
      FAULT_REPORT: report,
      FAULT_MATRIX: "full",
    },
  });
  const wall = (Date.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`test/e2e/docs/gitops-faults.test.ts failed (exit ${r.status})`);
  /** @type {{ runners: number, rows: { fault: string, runs: number, seconds: number }[], notes: string[] }} */
  const { runners, rows, notes } = JSON.parse(readFileSync(report, "utf8"));
  const base = rows.find((row) => row.fault === "none");
  console.log(`\n${runners} runners; the whole file: ${wall.toFixed(0)} s\n`);
  console.log("| Fault | Runs of the job | Seconds to converge | Against no fault |");
  console.log("|---|---:|---:|---:|");
  for (const row of rows) {
    const ratio = base ? `${(row.seconds / base.seconds).toFixed(1)}x` : "";
    console.log(`| ${row.fault} | ${row.runs} | ${row.seconds.toFixed(1)} | ${ratio} |`);
  }
  for (const note of notes.filter((n) => !rows.some((row) => n.startsWith(row.fault)))) console.log(`\n${note}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
