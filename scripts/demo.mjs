#!/usr/bin/env node
// npm run demo: the main job in one command.
//
//  1. makes sure the Pulumi CLI is there (scripts/ensure-pulumi: PATH, cache, or a build from Go modules)
//  2. builds the package (npm run build)
//  3. starts the cms emulator in this process on a free port (provisioning ~18 s, so you see it)
//  4. uses a local file backend and a passphrase in a temporary directory, with a copy of the
//     root Pulumi project (Pulumi.yaml, demo/index.ts), on the CLI driver (scripts/lib/pulumi-driver.mjs)
//  5. runs it:
//       pulumi up        -> the cluster comes up, with progress
//       pulumi stack output (kubeconfig shown as [secret])
//       pulumi up        -> workers 2 -> 3, in place
//       pulumi destroy
//  6. stops the emulator and removes the temporary directory, also on Ctrl-C or failure.
//
// Environment: CMS_DEMO_PROVISION_SECONDS / CMS_DEMO_SCALE_SECONDS / CMS_DEMO_DELETE_SECONDS
// change the emulator's durations (defaults 18, 8, 6).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { findPulumi, makeWorkspace, openProject, REPO_ROOT as ROOT } from "./lib/pulumi-driver.mjs";

const STACK = "demo";
const started = Date.now();

const seconds = (name, fallback) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v >= 0 && process.env[name] !== "" && process.env[name] !== undefined ? v : fallback;
};
const TIMINGS = {
  provisionSeconds: seconds("CMS_DEMO_PROVISION_SECONDS", 18),
  scaleSeconds: seconds("CMS_DEMO_SCALE_SECONDS", 8),
  deleteSeconds: seconds("CMS_DEMO_DELETE_SECONDS", 6),
};

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const banner = (s) => console.log(`\n${bold(`==> ${s}`)}  (${elapsed()})`);

// --- cleanup, also on Ctrl-C / SIGTERM / failure -------------------------------------------------
let emulator;
let tmp;
let current; // the build or the CLI command running now: { stop(): void, done: Promise<unknown> }
let stopping = false;

async function cleanup() {
  if (current) {
    current.stop();
    await Promise.race([current.done.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  }
  if (emulator) {
    await emulator.close().catch(() => undefined);
    emulator = undefined;
  }
  if (tmp) {
    fs.rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  }
}

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${sig}: stopping (the emulator and its clusters go away with it; temporary files are removed) ...`);
    cleanup().finally(() => process.exit(130));
  });
}

/** Track `start(signal)` as the running step, so that Ctrl-C stops it before cleaning up. */
async function step(start) {
  const controller = new AbortController();
  const done = start(controller.signal);
  current = { stop: () => controller.abort(), done };
  try {
    return await done;
  } finally {
    current = undefined;
  }
}

/** `npm run build` with the terminal attached. */
function build(signal) {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: "inherit", signal });
    child.on("error", reject);
    child.on("exit", (code, sig) => (code === 0 ? resolve() : reject(new Error(`npm run build failed (${sig ?? `exit ${code}`})`))));
  });
}

/**
 * The root project (Pulumi.yaml, demo/) copied into the temporary workspace, with a package.json
 * of its own (the language host looks for one), and whose node_modules
 * links this checkout as `pulumi-cms` and every package of its node_modules: the stack's config
 * file is written there, and the checkout stays as it was.
 */
function copyProject(dir) {
  fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "pulumi-cms-demo", private: true }, null, 2)}\n`);
  fs.cpSync(path.join(ROOT, "demo"), path.join(dir, "demo"), { recursive: true });
  const nodeModules = path.join(dir, "node_modules");
  fs.mkdirSync(nodeModules);
  fs.symlinkSync(ROOT, path.join(nodeModules, "pulumi-cms"), "dir");
  for (const entry of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (!entry.startsWith(".")) fs.symlinkSync(path.join(ROOT, "node_modules", entry), path.join(nodeModules, entry), "dir");
  }
}

async function main() {
  console.log(bold("pulumi-cms demo: a cluster of the Cluster Management Service, with the real Pulumi CLI and a local emulator"));

  banner("Pulumi CLI (scripts/ensure-pulumi; a first build from Go modules takes 10-30 min)");
  const { binDir } = await findPulumi({ build: true });
  console.log(`using ${path.join(binDir, "pulumi")}`);

  banner("Build (npm run build)");
  await step(build);

  banner("Emulator");
  const { startEmulator } = createRequire(import.meta.url)("@pulumi-cms/emulator");
  const workspace = await makeWorkspace("pulumi-cms-demo-");
  tmp = workspace.root;
  const token = `cms_demo_${randomBytes(16).toString("hex")}`;
  emulator = await startEmulator({ port: 0, token, ...TIMINGS });
  console.log(
    `cms-emulator listening on ${emulator.url} (provisioning ${TIMINGS.provisionSeconds}s, scaling ${TIMINGS.scaleSeconds}s, deleting ${TIMINGS.deleteSeconds}s)`,
  );

  copyProject(workspace.project);
  const project = await openProject({
    workspace,
    name: "pulumi-cms-demo",
    stack: STACK,
    passphrase: randomBytes(16).toString("hex"),
    // The demo is for people to watch: keep the CLI's colours.
    color: Boolean(process.stdout.isTTY),
  });
  console.log(`state: local file backend in ${workspace.backend} (passphrase-encrypted secrets)`);
  await project.setConfigs({ "cms:endpoint": emulator.url, workers: 2 }, { "cms:token": token });
  console.log("stack config: cms:endpoint, cms:token (secret), workers = 2");

  const show = { onOutput: (d) => process.stdout.write(d), timeoutMs: 30 * 60_000 };
  banner("pulumi up: create the cluster (1 control plane, 2 workers)");
  await step((signal) => project.up([], { ...show, signal }));

  banner("pulumi stack output (the kubeconfig is a secret output)");
  await step(() => project.run(["stack", "output"], show));
  console.log("\n(`pulumi stack output kubeconfig --show-secrets > kubeconfig` would write it out; a Kubernetes");
  console.log(' provider takes it as `new k8s.Provider("cms", { kubeconfig: ref.requireOutput("kubeconfig") })`.)');

  banner("pulumi up: scale workers 2 -> 3 in place");
  await project.setConfig("workers", 3);
  await step((signal) => project.up([], { ...show, signal }));

  banner("pulumi destroy");
  await step((signal) => project.destroy([], { ...show, signal }));

  const left = await emulator.control.clusters();
  if (left.length > 0) throw new Error(`the emulator still has ${left.length} cluster(s) after destroy`);
  banner("Done: created, scaled and destroyed; the emulator has no clusters left");
  console.log("(the stack lived in a temporary backend, removed now with the emulator: nothing to `pulumi stack rm`)");
}

main()
  .then(async () => {
    await cleanup();
    process.exit(0);
  })
  .catch(async (e) => {
    if (stopping) return;
    console.error(`\ndemo failed: ${e instanceof Error ? e.message : e}`);
    await cleanup();
    process.exit(1);
  });
