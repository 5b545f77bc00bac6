// @ts-check
/**
 * CI runners of docs/gitops.md's jobs, each as a separate machine would be: its own HOME (and
 * PULUMI_HOME in it), its own working copy of its repository (a git repository whose project
 * declares `CLUSTERS` clusters, default 5, auto-named after the project), and a process tree of
 * its own for each job. They share only what the recipe shares: the backend
 * (`PULUMI_BACKEND_URL`) and the service token (`CMS_TOKEN`), from the caller's environment.
 * For test/e2e/docs/gitops-faults.test.ts and bench/runners.mjs. Plain `node` loads it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { execFile, REPO_ROOT } from "../../scripts/lib/pulumi-driver.mjs";
import { bashBlockAfter } from "./doc-blocks.mjs";

/** @typedef {import("../../scripts/lib/pulumi-driver.mjs").RunResult} RunResult */

const DOC = fs.readFileSync(path.join(REPO_ROOT, "docs", "gitops.md"), "utf8");

// CLUSTERS stands for the commit being deployed: another commit declares more clusters. NAMED
// (indices, comma-separated) gives those clusters an explicit name instead of an auto-name, and
// WORKERS (default 1) sizes every cluster.
const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");
const named = new Set((process.env.NAMED || "").split(",").filter(Boolean).map(Number));
const ids = [];
for (let i = 0; i < Number(process.env.CLUSTERS || 5); i++) {
  const name = named.has(i) ? pulumi.getProject() + "-named-" + i : undefined;
  ids.push(new cms.Cluster(pulumi.getProject() + "-" + i, { name, controlPlanes: 1, workers: Number(process.env.WORKERS || 1), nodeSize: "small" }).id);
}
exports.ids = ids;
`;

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "ci",
  GIT_AUTHOR_EMAIL: "ci@example.com",
  GIT_COMMITTER_NAME: "ci",
  GIT_COMMITTER_EMAIL: "ci@example.com",
};

/**
 * @typedef {object} Runner
 * @property {string} project the Pulumi project its repository holds
 * @property {string} repo    its working copy
 * @property {NodeJS.ProcessEnv} env
 */

/**
 * A runner in `dir` (`dir/home`, `dir/repo`). Its working copy is a new repository of `project`
 * whose package.json and package-lock.json, if any, are those of `installed` (a directory where
 * npm installed the package: the merge job's `npm ci` needs them), or, with `cloneOf`, a clone of that runner's repository (its committed
 * stack file included). Its node_modules links to `installed`'s, as `npm ci` would have made it.
 *
 * @param {{ dir: string, installed: string, env: NodeJS.ProcessEnv, project?: string, cloneOf?: Runner }} options
 * @returns {Runner}
 */
export function makeRunner({ dir, installed, env, project, cloneOf }) {
  const home = path.join(dir, "home");
  const repo = path.join(dir, "repo");
  fs.mkdirSync(home, { recursive: true });
  const runnerEnv = { ...env, ...GIT_IDENTITY, HOME: home, PULUMI_HOME: path.join(home, ".pulumi") };
  /** @param {...string} args */
  const git = (...args) => execFileSync("git", args, { cwd: repo, env: runnerEnv, stdio: "ignore" });
  if (cloneOf) {
    execFileSync("git", ["clone", "--quiet", cloneOf.repo, repo], { env: runnerEnv, stdio: "ignore" });
    project = cloneOf.project;
  } else {
    if (!project) throw new Error("makeRunner: a project or a runner to clone");
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(path.join(repo, "Pulumi.yaml"), `name: ${project}\nruntime: nodejs\nmain: index.js\n`);
    fs.writeFileSync(path.join(repo, "index.js"), PROGRAM);
    fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n");
    for (const f of ["package.json", "package-lock.json"]) {
      if (fs.existsSync(path.join(installed, f))) fs.copyFileSync(path.join(installed, f), path.join(repo, f));
    }
    git("init", "--quiet");
    git("add", ".");
    git("commit", "--quiet", "-m", "program");
  }
  fs.symlinkSync(path.join(installed, "node_modules"), path.join(repo, "node_modules"), "dir");
  return { project, repo, env: runnerEnv };
}

/**
 * @typedef {RunResult & { started: number, ended: number }} JobResult
 * `started` and `ended`: epoch milliseconds.
 */

/**
 * @param {Promise<RunResult>} run
 * @returns {Promise<JobResult>}
 */
async function timed(run) {
  const started = Date.now();
  const result = await run;
  return { ...result, started, ended: Date.now() };
}

/**
 * The job under `### title` of docs/gitops.md, as written, with `bash -eu` in the runner's working
 * copy. Never rejects for a non-zero exit (look at `code`).
 *
 * @param {Runner} runner
 * @param {string} title
 * @param {{ extraEnv?: NodeJS.ProcessEnv, onSpawn?: (pid: number) => void, timeoutMs?: number }} [options]
 * @returns {Promise<JobResult>}
 */
export function runJob(runner, title, options = {}) {
  return runBash(runner, bashBlockAfter(DOC, `### ${title}`, "docs/gitops.md"), options);
}

/**
 * `script` with `bash -eu` in the runner's working copy (a process group of its own): what a
 * person types there, or a job's commands. Never rejects for a non-zero exit (look at `code`).
 *
 * @param {Runner} runner
 * @param {string} script
 * @param {{ extraEnv?: NodeJS.ProcessEnv, onSpawn?: (pid: number) => void, timeoutMs?: number }} options
 * @returns {Promise<JobResult>}
 */
export function runBash(runner, script, { extraEnv = {}, onSpawn, timeoutMs = 10 * 60_000 } = {}) {
  return timed(
    execFile("bash", ["-eu", "-c", script], {
      cwd: runner.repo,
      env: { ...runner.env, ...extraEnv },
      timeoutMs,
      onSpawn: (child) => child.pid && onSpawn?.(child.pid),
    }),
  );
}

/**
 * The line of docs/gitops.md's merge job that runs `cms-gitops merge`: the job once `npm ci` and
 * the login are done, for runs that must start at the same moment (`npm ci` takes each runner a
 * different time).
 */
export const MERGE_COMMAND = (() => {
  const line = bashBlockAfter(DOC, "### Merge", "docs/gitops.md")
    .split("\n")
    .find((l) => l.includes("cms-gitops merge"));
  if (!line) throw new Error("docs/gitops.md: the merge job runs no `cms-gitops merge`");
  return line;
})();

/**
 * {@link MERGE_COMMAND}, as written, with `bash -eu` in the runner's working copy. Never rejects
 * for a non-zero exit (look at `code`).
 *
 * @param {Runner} runner
 * @param {{ extraEnv?: NodeJS.ProcessEnv, onSpawn?: (pid: number) => void, timeoutMs?: number }} [options]
 * @returns {Promise<JobResult>}
 */
export function runMergeCommand(runner, options = {}) {
  return runBash(runner, MERGE_COMMAND, options);
}

/** What `cms-gitops merge` says, exiting 4, when another update of the stack started at the same moment. */
export const LOST_RACE = "another update of this stack started at the same moment";

/**
 * The merge job's update alone, `pulumi up --stack prod --refresh --yes --non-interactive
 * --skip-preview` (what the merge job runs once the stack is unlocked), in the runner's working copy.
 *
 * @param {Runner} runner
 * @param {{ extraEnv?: NodeJS.ProcessEnv, onSpawn?: (pid: number) => void, timeoutMs?: number }} [options]
 * @returns {Promise<JobResult>}
 */
export function mergeUp(runner, { extraEnv = {}, onSpawn, timeoutMs = 10 * 60_000 } = {}) {
  return timed(
    execFile("pulumi", ["up", "--stack", "prod", "--refresh", "--yes", "--non-interactive", "--skip-preview"], {
      cwd: runner.repo,
      env: { ...runner.env, ...extraEnv },
      timeoutMs,
      onSpawn: (child) => child.pid && onSpawn?.(child.pid),
    }),
  );
}

/**
 * The ids of the clusters the runner's stack records, and its pending operations. Asynchronous,
 * so that the checks of several runners' stacks run at once.
 *
 * @param {Runner} runner
 * @returns {Promise<{ ids: string[], pending: unknown[] }>}
 */
export async function stackClusters(runner) {
  const exported = await execFile("pulumi", ["stack", "export", "--stack", "prod"], { cwd: runner.repo, env: runner.env });
  if (exported.code !== 0) throw new Error(`pulumi stack export failed (exit ${exported.code}) in ${runner.repo}:\n${exported.output}`);
  const deployment = JSON.parse(exported.stdout).deployment;
  /** @type {{ type: string, outputs?: { id?: string }, id?: string }[]} */
  const resources = deployment.resources ?? [];
  const ids = resources.filter((r) => r.type === "pulumi-nodejs:dynamic/cms:Cluster").map((r) => r.id ?? r.outputs?.id ?? "");
  return { ids, pending: deployment.pending_operations ?? [] };
}

/**
 * The updates of the runner's stack (`pulumi stack history`), oldest first: kind, result, start
 * and end (epoch milliseconds; the CLI records whole seconds).
 *
 * @param {Runner} runner
 * @returns {{ kind: string, result: string, start: number, end: number }[]}
 */
export function stackHistory(runner) {
  const text = execFileSync("pulumi", ["stack", "history", "--stack", "prod", "--json"], {
    cwd: runner.repo,
    env: runner.env,
    encoding: "utf8",
  });
  /** @type {{ kind: string, result: string, startTime: string, endTime: string }[]} */
  const updates = JSON.parse(text);
  return updates.map((u) => ({ kind: u.kind, result: u.result, start: Date.parse(u.startTime), end: Date.parse(u.endTime) })).reverse();
}

/** The CLI's refusal of an update while another process holds the stack's lock. */
export const LOCKED = /the stack is currently locked by \d+ lock\(s\)/;
