// @ts-check
// The lifecycle tests' side of the Pulumi CLI: the emulator they run against, the test program,
// temporary projects on the one CLI driver (scripts/lib/pulumi-driver.mjs: the Automation API, a
// temporary local file backend, PULUMI_HOME and passphrase per project) and the checks shared by
// the suites. Checked JavaScript (`npm run lint` type-checks it) so that `node bench/*.mjs`
// loads it too:
//
//   import { startLifecycleEmulator, createProject } from "../test/e2e/lifecycle/harness.mjs";
//   const emu = await startLifecycleEmulator();                 // in this process, tiny durations
//   const project = await createProject({ config: emu.stackConfig() });
//   const up = await project.up();                              // text as printed, engine events, steps
//   const state = await project.exportStack();                  // pulumi stack export (no secrets)
//   await project.destroy();
//   await project.dispose(); await emu.close();
//
// The program is plain JavaScript requiring the built package (dist/), so no TypeScript compile
// happens per run. The CLI runs as an async child process: the emulator answers from this very
// process, so nothing here may block the event loop while pulumi runs.
import { randomBytes } from "node:crypto";
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { makeWorkspace, openProject, REPO_ROOT, writeProject } from "../../../scripts/lib/pulumi-driver.mjs";

export { PulumiCommandError } from "../../../scripts/lib/pulumi-command-error.mjs";
export {
  alive,
  CLUSTER_TYPE,
  descendants,
  execFile,
  findPulumi,
  killTree,
  PINNED_PULUMI_VERSION,
  PulumiProject,
  REPO_ROOT,
} from "../../../scripts/lib/pulumi-driver.mjs";
export { eventually } from "../../support/eventually.mjs";

/** @typedef {import("../../../scripts/lib/pulumi-driver.mjs").RunResult} RunResult */
/** @typedef {import("../../../scripts/lib/pulumi-driver.mjs").OperationResult} OperationResult */
/** @typedef {import("../../../scripts/lib/pulumi-driver.mjs").ResourceStep} ResourceStep */
/** @typedef {import("../../../packages/emulator/src/index.js").EmulatorOptions} EmulatorOptions */
/** @typedef {import("../../../packages/emulator/src/index.js").RunningEmulator} RunningEmulator */
/** @typedef {import("@pulumi-cms/contract").ApiCluster} ApiCluster */

const require = createRequire(import.meta.url);

/** True when the lifecycle tests were switched off on purpose (CMS_SKIP_LIFECYCLE=1). */
export function lifecycleSkipped() {
  return process.env.CMS_SKIP_LIFECYCLE === "1";
}

/**
 * The emulator module of the built package (dist/).
 *
 * @returns {typeof import("../../../packages/emulator/src/index.js")}
 */
function loadEmulatorModule() {
  try {
    return require("@pulumi-cms/emulator");
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== "MODULE_NOT_FOUND") throw e;
    throw new Error("@pulumi-cms/emulator is not built: run `npm run build` first (npm test does).", { cause: e });
  }
}

/** Durations that keep a lifecycle run short but still show every transition. */
export const LIFECYCLE_TIMINGS = Object.freeze({ provisionSeconds: 1, scaleSeconds: 0.5, deleteSeconds: 0.5, upgradeSeconds: 0.5 });

/**
 * Start the emulator in this process on a free port with {@link LIFECYCLE_TIMINGS} (overridable).
 * Returns the RunningEmulator plus helpers:
 * - `stackConfig()`: `{ "cms:endpoint": url }` and `secretConfig()`: `{ "cms:token": token }`
 * - `api(method, path, body?)`: call `/v1` with the token; resolves `{ status, body, text }`
 * - `clusters()`: every cluster (control API, ignores scopes)
 * - `waitForCluster(id, predicate, timeoutMs?)`: poll the control API until predicate(cluster|undefined)
 * - `skipAhead(ms)`: move the emulator's clock (the wall clock until then) `ms` ahead, so that what
 *   the service is doing ends that much sooner: for a test that needs a long operation only
 *   while a command is running, not to wait out its rest after
 */
/**
 * @typedef {object} ApiResponse
 * @property {number} status
 * @property {any} body
 * @property {string} text
 */
/**
 * @typedef {RunningEmulator & {
 *   stackConfig(): Record<string, string>,
 *   secretConfig(): Record<string, string>,
 *   api(method: string, path: string, body?: unknown): Promise<ApiResponse>,
 *   clusters(): Promise<ApiCluster[]>,
 *   waitForCluster(id: string, predicate: (c: ApiCluster | undefined) => boolean, timeoutMs?: number): Promise<ApiCluster | undefined>,
 *   skipAhead(ms: number): void,
 * }} LifecycleEmulator
 */
/**
 * @param {EmulatorOptions} [options]
 * @returns {Promise<LifecycleEmulator>}
 */
export async function startLifecycleEmulator(options = {}) {
  const { startEmulator } = loadEmulatorModule();
  let skipped = 0;
  const emu = await startEmulator({
    port: 0,
    token: `cms_lifecycle_${randomBytes(12).toString("hex")}`,
    adminToken: `cms_admin_${randomBytes(12).toString("hex")}`,
    clock: { now: () => Date.now() + skipped },
    ...LIFECYCLE_TIMINGS,
    ...options,
  });
  /** @type {LifecycleEmulator["api"]} */
  const api = async (method, urlPath, body) => {
    const res = await fetch(`${emu.url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${emu.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, body: json, text };
  };
  const clusters = async () => emu.control.clusters();
  /** @type {LifecycleEmulator["waitForCluster"]} */
  const waitForCluster = async (id, predicate, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = await clusters();
      const c = all.find((x) => x.id === id);
      if (predicate(c)) return c;
      if (Date.now() > deadline) throw new Error(`cluster ${id}: condition not met within ${timeoutMs} ms (last: ${JSON.stringify(c)})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return Object.assign(emu, {
    stackConfig: () => ({ "cms:endpoint": emu.url }),
    secretConfig: () => ({ "cms:token": emu.token }),
    api,
    clusters,
    waitForCluster,
    /** @param {number} ms */
    skipAhead: (ms) => {
      if (options.clock) throw new Error("skipAhead moves the harness's own clock, not the one given in the options");
      if (!(ms >= 0)) throw new RangeError("skipAhead moves the clock forward only");
      skipped += ms;
    },
  });
}

/**
 * The default test program (plain JavaScript), driven by stack config of the project namespace:
 *   mode           create (default) | import | get | none
 *   name           explicit cluster name (default: auto-named from the resource name "cluster")
 *   controlPlanes, workers, nodeSize    (defaults 1, 2, small)
 *   id             the cluster id for mode import / get
 *   createTimeout  customTimeouts.create (e.g. "3s")
 * Stack outputs: id, name, status, controlPlanes, workers, nodeSize, nodeCount, endpoint, kubeconfig.
 */
export const DEFAULT_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");

const config = new pulumi.Config();
const mode = config.get("mode") || "create";

function exportCluster(c) {
  exports.id = c.id;
  exports.name = c.name;
  exports.status = c.status;
  exports.controlPlanes = c.controlPlanes;
  exports.workers = c.workers;
  exports.nodeSize = c.nodeSize;
  exports.nodeCount = c.nodeCount;
  exports.endpoint = c.endpoint;
  exports.kubeconfig = c.kubeconfig;
}

if (mode === "get") {
  exportCluster(cms.Cluster.get("adopted", config.require("id")));
} else if (mode === "create" || mode === "import") {
  const opts = {};
  const createTimeout = config.get("createTimeout");
  if (createTimeout) opts.customTimeouts = { create: createTimeout };
  if (mode === "import") opts.import = config.require("id");
  exportCluster(
    new cms.Cluster(
      "cluster",
      {
        name: config.get("name"),
        controlPlanes: config.getNumber("controlPlanes") ?? 1,
        workers: config.getNumber("workers") ?? 2,
        nodeSize: config.get("nodeSize") ?? "small",
      },
      opts,
    ),
  );
} else if (mode !== "none") {
  throw new Error("unknown mode " + mode);
}
`;

/** Passphrase of the temporary stacks' secrets (local file backend, throw-away). */
const TEST_PASSPHRASE = "pulumi-cms-lifecycle-passphrase";

/**
 * @typedef {object} CreateProjectOptions
 * @property {string} [name]     project name (default "cms-lifecycle")
 * @property {string} [stack]    stack name (default "dev")
 * @property {string} [program]  index.js source (default {@link DEFAULT_PROGRAM})
 * @property {Record<string, string>} [files]  extra files, relative to the project dir
 * @property {Record<string, string | number>} [config]   plain stack config
 * @property {Record<string, string>} [secretConfig]      secret stack config
 * @property {Record<string, string>} [env]   extra environment of every CLI command
 * @property {string} [nodeModules]  a node_modules directory to use (e.g. where the packed package
 *   and another Pulumi SDK were installed) instead of links to this repository
 * @property {boolean} [echo]    copy CLI output to this process's stderr as it arrives
 */

/**
 * Make a temporary Pulumi project with a local file backend and an initialised stack.
 *
 * @param {CreateProjectOptions} [opts]
 */
export async function createProject(opts = {}) {
  const workspace = await makeWorkspace("pulumi-cms-lc-");
  const dir = workspace.project;
  const name = opts.name ?? "cms-lifecycle";
  await writeProject(dir, { name, program: opts.program ?? DEFAULT_PROGRAM, typescript: false });
  if (opts.nodeModules) {
    await fsp.symlink(opts.nodeModules, path.join(dir, "node_modules"), "dir");
  } else {
    await fsp.mkdir(path.join(dir, "node_modules"));
    await fsp.symlink(REPO_ROOT, path.join(dir, "node_modules", "pulumi-cms"), "dir");
    await fsp.symlink(path.join(REPO_ROOT, "node_modules", "@pulumi"), path.join(dir, "node_modules", "@pulumi"), "dir");
  }
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    await fsp.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fsp.writeFile(path.join(dir, rel), text);
  }
  const project = await openProject({
    workspace,
    name,
    stack: opts.stack ?? "dev",
    passphrase: TEST_PASSPHRASE,
    env: opts.env ?? {},
    echo: opts.echo ?? process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  await project.setConfigs(opts.config ?? {}, opts.secretConfig ?? {});
  return project;
}

/**
 * Every file under `dir` whose text contains one of `needles`: `[{ file, needle }]`. For the
 * secrets checks (backend, PULUMI_HOME, project directory). Symlinks are not followed.
 *
 * @param {string} dir
 * @param {string[]} needles
 * @returns {Promise<Array<{ file: string, needle: string }>>}
 */
export async function filesContaining(dir, needles) {
  /** @type {Array<{ file: string, needle: string }>} */
  const hits = [];
  /** @param {string} d */
  const walk = async (d) => {
    for (const ent of await fsp.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) await walk(p);
      else if (ent.isFile()) {
        const text = await fsp.readFile(p, "utf8");
        for (const n of needles) if (n && text.includes(n)) hits.push({ file: p, needle: `${n.slice(0, 12)}...` });
      }
    }
  };
  await walk(dir);
  return hits;
}

/**
 * Tear down after a suite, even one whose steps failed: remove the projects, then stop the
 * suite's emulator. Its clusters go with it, so the stacks are not destroyed first: a
 * `pulumi destroy` per project would only wait out the emulator's deletes (the tests that
 * destroy do so in their own steps). Without an emulator of the suite's own, each stack is
 * destroyed first (failures tolerated). Undefined entries (a `beforeAll` that failed half-way)
 * are skipped.
 *
 * @param {Array<import("../../../scripts/lib/pulumi-driver.mjs").PulumiProject | undefined>} projects
 * @param {{ close(): Promise<void> }} [emulator]
 */
export async function teardown(projects, emulator) {
  for (const p of projects) {
    if (!p) continue;
    if (!emulator) await p.destroy([], { allowFailure: true });
    await p.dispose();
  }
  await emulator?.close();
}
