/**
 * The one way this repository runs the Pulumi CLI on a throw-away workspace: the test harness
 * (test/lifecycle/harness.mjs), the benchmarks (bench/lib/pulumi.mjs) and the demo
 * (scripts/demo.mjs) all build on it. A workspace is a temporary directory with
 *   project/   Pulumi.yaml, package.json, index.js (the demo uses the repository's own project)
 *   backend/   the local file backend (PULUMI_BACKEND_URL=file://...)
 *   home/      PULUMI_HOME, so ~/.pulumi is never touched
 * and every command runs offline, in an environment that inherits no PULUMI_* or CMS_* variable.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Make `<tmp>/<prefix>XXXXXX/{project,backend,home}`; resolves to the four paths. */
export async function makeWorkspace(prefix) {
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  const dirs = { root, project: path.join(root, "project"), backend: path.join(root, "backend"), home: path.join(root, "home") };
  await Promise.all([dirs.project, dirs.backend, dirs.home].map((d) => fs.promises.mkdir(d, { recursive: true })));
  return dirs;
}

/**
 * Write a plain-JavaScript Pulumi project (no TypeScript step per run unless `typescript` is left
 * to the language host's default).
 *
 * @param {string} dir the project directory
 * @param {{ name: string, program: string, description?: string, typescript?: boolean }} project
 */
export async function writeProject(dir, { name, program, description, typescript }) {
  const runtime = typescript === undefined ? "runtime: nodejs\n" : `runtime:\n  name: nodejs\n  options:\n    typescript: ${typescript}\n`;
  const yaml = `name: ${name}\n${runtime}${description ? `description: ${description}\n` : ""}main: index.js\n`;
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), yaml);
  await fs.promises.writeFile(path.join(dir, "package.json"), `${JSON.stringify({ name, private: true, main: "index.js" }, null, 2)}\n`);
  await fs.promises.writeFile(path.join(dir, "index.js"), program);
}

/**
 * The environment of a CLI command on a workspace: this process's environment without any
 * PULUMI_* or CMS_* variable, the CLI's bin directory first on PATH, the workspace's backend and
 * home, no update check, no plugin download, no prompt, no colour; then `env` on top (the
 * caller's endpoint and token go there).
 *
 * @param {{ binDir: string, backend: string, home: string, passphrase: string, env?: Record<string, string> }} options
 */
export function workspaceEnv({ binDir, backend, home, passphrase, env = {} }) {
  const out = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("PULUMI_") || k.startsWith("CMS_")) continue;
    out[k] = v;
  }
  return {
    ...out,
    PATH: `${binDir}${path.delimiter}${out.PATH ?? ""}`,
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_HOME: home,
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    NO_COLOR: "1",
    ...env,
  };
}
