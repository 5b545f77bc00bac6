#!/usr/bin/env node
// What one Pulumi CLI command costs in the lifecycle suite: the fixed overhead of the engine,
// the Node program and the dynamic-provider host, with operations that finish at once in the
// emulator (durations 0: every wait ends at the poll the provider makes as soon as the request is answered).
//
//   npm run bench:cli [-- rounds]       (builds first; needs the CLI; default 3 rounds)
//
// Prints a Markdown table (min / median / max per command). Figures: docs/benchmarks.md.
import os from "node:os";
import { createProject, findPulumi, startLifecycleEmulator } from "../test/e2e/lifecycle/harness.mjs";

const rounds = Number(process.argv[2] ?? 3);
const { version, binDir } = await findPulumi();
const emu = await startLifecycleEmulator({ provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0 });
const samples = new Map();
const time = async (label, fn) => {
  const t = Date.now();
  await fn();
  const list = samples.get(label) ?? [];
  list.push(Date.now() - t);
  samples.set(label, list);
};

try {
  for (let i = 0; i < rounds; i++) {
    let project;
    await time("createProject (temp dir + `stack init`)", async () => {
      project = await createProject({ name: `cms-timings-${i}`, config: emu.stackConfig(), secretConfig: emu.secretConfig() });
    });
    await time("`config set` (one key)", () => project.setConfig("workers", 2));
    await time("`preview` (1 create)", () => project.preview());
    await time("`up --skip-preview` (create)", () => project.up());
    await time("`preview --expect-no-changes`", () => project.preview(["--expect-no-changes"]));
    await time("`refresh --skip-preview`", () => project.refresh());
    await project.setConfig("workers", 3);
    await time("`up --skip-preview` (update)", () => project.up());
    await time("`stack export`", () => project.exportStack());
    await time("`destroy --skip-preview`", () => project.destroy());
    await project.dispose();
  }
} finally {
  await emu.close();
}

const fmt = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `Pulumi ${version} (${binDir}), Node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${rounds} rounds\n`,
);
console.log("| Command | min | median | max |");
console.log("|---|---|---|---|");
for (const [label, list] of samples) {
  const s = [...list].sort((a, b) => a - b);
  console.log(`| ${label} | ${fmt(s[0])} | ${fmt(s[Math.floor(s.length / 2)])} | ${fmt(s[s.length - 1])} |`);
}
