#!/usr/bin/env node
// npm run demo: the main job in one command.
//
//  1. makes sure the Pulumi CLI is there (scripts/ensure-pulumi: PATH, cache, or a build from Go modules)
//  2. builds the package (npm run build)
//  3. starts the cms emulator in this process on a free port (provisioning ~18 s, so you see it)
//  4. uses a local file backend and a passphrase in a temporary directory
//  5. runs the root Pulumi project (Pulumi.yaml, demo/index.ts):
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
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { workspaceEnv } from "./lib/pulumi-workspace.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const STACK = "demo";
const REPO_STACK_FILE = path.join(ROOT, `Pulumi.${STACK}.yaml`);
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
let current; // the child process running now
let stopping = false;
let repoStackFileIsOurs = false;

async function cleanup() {
  if (current && current.exitCode === null) {
    current.kill("SIGINT");
    await new Promise((resolve) => {
      const t = setTimeout(() => {
        current?.kill("SIGKILL");
        resolve();
      }, 15_000);
      current.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }
  if (repoStackFileIsOurs) fs.rmSync(REPO_STACK_FILE, { force: true });
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

// --- child processes -------------------------------------------------------------------------------
/** Run a command with the terminal attached (so the CLI shows its live display). */
function run(cmd, args, { env = process.env, cwd = ROOT, capture = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["inherit", capture ? "pipe" : "inherit", "inherit"] });
    current = child;
    let out = "";
    if (capture) child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      current = undefined;
      if (stopping) return; // the signal handler finishes the process
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

async function main() {
  console.log(bold("pulumi-cms demo: a cluster of the Cluster Management Service, with the real Pulumi CLI and a local emulator"));

  banner("Pulumi CLI (scripts/ensure-pulumi; a first build from Go modules takes 10-30 min)");
  const ensured = await run("bash", [path.join(ROOT, "scripts", "ensure-pulumi")], { capture: true });
  const binDir = ensured.trim().split("\n").pop();
  if (!binDir || !fs.existsSync(path.join(binDir, "pulumi")))
    throw new Error(`scripts/ensure-pulumi did not name a directory with pulumi (got "${binDir}")`);
  console.log(`using ${path.join(binDir, "pulumi")}`);

  banner("Build (npm run build)");
  await run("npm", ["run", "--silent", "build"]);

  banner("Emulator");
  const { startEmulator } = createRequire(import.meta.url)("@pulumi-cms/emulator");
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-demo-"));
  const token = `cms_demo_${randomBytes(16).toString("hex")}`;
  emulator = await startEmulator({ port: 0, token, ...TIMINGS });
  console.log(
    `cms-emulator listening on ${emulator.url} (provisioning ${TIMINGS.provisionSeconds}s, scaling ${TIMINGS.scaleSeconds}s, deleting ${TIMINGS.deleteSeconds}s)`,
  );

  const backend = path.join(tmp, "backend");
  const home = path.join(tmp, "pulumi-home");
  fs.mkdirSync(backend);
  fs.mkdirSync(home);
  const env = workspaceEnv({ binDir, backend, home, passphrase: randomBytes(16).toString("hex") });
  // The demo is for people to watch: keep the CLI's colours.
  delete env.NO_COLOR;
  console.log(`state: local file backend in ${backend} (passphrase-encrypted secrets)`);

  // `stack init` writes Pulumi.demo.yaml next to Pulumi.yaml; it is moved to the temporary
  // directory at once and every later command is pointed at it, so the checkout stays clean.
  if (fs.existsSync(REPO_STACK_FILE)) {
    throw new Error(`${REPO_STACK_FILE} exists (another demo running, or your own stack "${STACK}"): remove it first`);
  }
  const configFile = path.join(tmp, `Pulumi.${STACK}.yaml`);
  const pulumi = (...args) => run(path.join(binDir, "pulumi"), args, { env });
  repoStackFileIsOurs = true;
  await pulumi("stack", "init", STACK);
  fs.copyFileSync(REPO_STACK_FILE, configFile);
  fs.rmSync(REPO_STACK_FILE);
  repoStackFileIsOurs = false;
  const cf = ["--config-file", configFile];
  await pulumi("config", "set", ...cf, "cms:endpoint", emulator.url);
  await pulumi("config", "set", ...cf, "--secret", "cms:token", token);
  await pulumi("config", "set", ...cf, "workers", "2");
  console.log("stack config: cms:endpoint, cms:token (secret), workers = 2");

  banner("pulumi up: create the cluster (1 control plane, 2 workers)");
  await pulumi("up", "--yes", ...cf);

  banner("pulumi stack output (the kubeconfig is a secret output)");
  await pulumi("stack", "output");
  console.log("\n(`pulumi stack output kubeconfig --show-secrets > kubeconfig` would write it out; a Kubernetes");
  console.log(' provider takes it as `new k8s.Provider("cms", { kubeconfig: ref.requireOutput("kubeconfig") })`.)');

  banner("pulumi up: scale workers 2 -> 3 in place");
  await pulumi("config", "set", ...cf, "workers", "3");
  await pulumi("up", "--yes", "--skip-preview", ...cf);

  banner("pulumi destroy");
  await pulumi("destroy", "--yes", "--skip-preview", ...cf);

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
