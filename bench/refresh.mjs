#!/usr/bin/env node
// What a drift gate costs a token's budget: `refresh` and `preview --refresh` of a stack of
// BENCH_FLEET clusters (default 50) with the real Pulumi CLI, each command on a fresh Community
// token (100 requests a minute) so the budgets do not overlap. Counts every /v1 call the emulator
// answers, the 429s among them, and the wall time.
//
//   npm run bench:refresh                        (builds first; needs the CLI: scripts/ensure-pulumi)
//   BENCH_PACKAGE_DIR=/tmp/old npm run bench:refresh   (measure another build of the package)
//
// Prints a Markdown table. Figures: docs/benchmarks.md.
import os from "node:os";
import { observeRequests, summarize } from "./lib/observer.mjs";
import { createProject, ensurePulumi, root, snapshotPackage } from "./lib/pulumi.mjs";

const FLEET = Number(process.env.BENCH_FLEET ?? 50);
const pkg = snapshotPackage(process.env.BENCH_PACKAGE_DIR ?? root);
const { startEmulator } = await import("@pulumi-cms/emulator");
await ensurePulumi();

const emu = await startEmulator({ port: 0, provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0, upgradeSeconds: 0 });
const labels = new Map([[emu.token, "setup"]]);
const observer = observeRequests(Number(new URL(emu.url).port), labels);
const project = await createProject({
  pkgDir: pkg.dir,
  name: "cms-bench-refresh",
  env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token, CMS_BENCH_COUNT: String(FLEET), CMS_BENCH_WORKERS: "1" },
});

const COMMANDS = [
  ["refresh --yes --skip-preview", ["refresh", "--yes", "--skip-preview", "--non-interactive"]],
  ["preview --refresh --expect-no-changes", ["preview", "--refresh", "--expect-no-changes", "--non-interactive"]],
  ["refresh --yes (preview pass, then refresh pass)", ["refresh", "--yes", "--non-interactive"]],
];

const rows = [];
try {
  await project.init();
  const up = await project.run(["up", "--yes", "--skip-preview", "--non-interactive"]);
  if (up.code !== 0) throw new Error(`pulumi up failed:\n${up.output}`);
  for (const [i, [label, args]] of COMMANDS.entries()) {
    const token = `cms_bench_community_${i}_${Date.now()}`;
    await emu.control.addToken({ token, permissions: ["read", "write"], scope: "*", plan: "community" });
    labels.set(token, label);
    const r = await project.run(args, { CMS_TOKEN: token });
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} failed:\n${r.output}`);
    rows.push({ label, wallMs: r.wallMs, ...summarize(observer.select(label)) });
  }
} finally {
  observer.stop();
  await project.run(["destroy", "--yes", "--skip-preview", "--non-interactive"]).catch(() => undefined);
  project.cleanup();
  pkg.cleanup();
  await emu.close();
}

console.log(`${FLEET} clusters, Community token (100/min) per command; Node ${process.version}, ${os.cpus().length} cores\n`);
console.log("| command | calls | 429s | wall time | calls by route |");
console.log("|---|---|---|---|---|");
for (const r of rows) {
  const routes = Object.entries(r.byRoute)
    .map(([route, n]) => `${route}: ${n}`)
    .join(", ");
  console.log(`| \`pulumi ${r.label}\` | ${r.calls} | ${r.r429} | ${(r.wallMs / 1000).toFixed(1)} s | ${routes} |`);
}
