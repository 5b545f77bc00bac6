/**
 * docs/gitops.md, run as written: each bash block under its heading runs with `bash -eu` in a
 * git repository holding a Pulumi project that depends on the packed package, with the
 * variables the doc says come from the CI's secret store. Between the jobs, what a pipeline
 * would see: the preview changes nothing, the merge creates the cluster, the drift gate passes,
 * then fails once the cluster is scaled in the console.
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, REPO_ROOT, startLifecycleEmulator, type LifecycleEmulator } from "../lifecycle/harness.mjs";
import { envWithNode, installProject, nodeBin, packTarball, workDir } from "../support/packages";
import { bashBlockAfter } from "../support/docs";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 6 * 60_000;
const DOC = path.join(REPO_ROOT, "docs", "gitops.md");

const PROGRAM = `"use strict";
const cms = require("pulumi-cms");
const cluster = new cms.Cluster("prod", { controlPlanes: 1, workers: 2, nodeSize: "small" });
exports.clusterId = cluster.id;
`;

describe.skipIf(lifecycleSkipped())("docs/gitops.md, run as written against the emulator", () => {
  let emu: LifecycleEmulator;
  let work: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const doc = fs.readFileSync(DOC, "utf8");

  /** Run one job of the doc; resolves with its output, rejects with it on a non-zero exit. */
  async function job(title: string, { allowFailure = false } = {}): Promise<{ code: number; output: string }> {
    try {
      const { stdout, stderr } = await execFile("bash", ["-eu", "-c", bashBlockAfter(doc, `### ${title}`, "docs/gitops.md")], {
        cwd: repo,
        env,
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, output: stdout + stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      const output = `${err.stdout ?? ""}${err.stderr ?? ""}`;
      if (!allowFailure) throw new Error(`job "${title}" failed (${err.code}):\n${output}`);
      return { code: err.code ?? 1, output };
    }
  }

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    emu = await startLifecycleEmulator();
    work = workDir("gitops");
    repo = path.join(work, "repo");
    const node = nodeBin(22);
    const tarball = packTarball(work);
    // The repository as its author left it: a project whose lock file pins the packed package.
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(path.join(repo, "Pulumi.yaml"), "name: clusters\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(repo, "index.js"), PROGRAM);
    fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n");
    const pulumiVersion = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")).version;
    await installProject(
      repo,
      { name: "clusters", dependencies: { "pulumi-cms": `file:${tarball}`, "@pulumi/pulumi": pulumiVersion } },
      envWithNode(node),
    );
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env: { ...process.env, ...gitIdentity }, stdio: "ignore" });
    const gitIdentity = {
      GIT_AUTHOR_NAME: "ci",
      GIT_AUTHOR_EMAIL: "ci@example.com",
      GIT_COMMITTER_NAME: "ci",
      GIT_COMMITTER_EMAIL: "ci@example.com",
    };
    git("init", "--quiet");
    git("add", ".");
    git("commit", "--quiet", "-m", "program");
    fs.mkdirSync(path.join(work, "backend"));
    fs.mkdirSync(path.join(work, "home"));
    // What the doc says comes from the CI's secret store, and nothing of this machine's Pulumi.
    env = envWithNode(`${binDir}${path.delimiter}${node}`, {
      ...gitIdentity,
      CMS_TOKEN: emu.token,
      CMS_ENDPOINT: emu.url,
      PULUMI_CONFIG_PASSPHRASE: "gitops-passphrase",
      PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
      PULUMI_HOME: path.join(work, "home"),
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      NO_COLOR: "1",
    });
    delete env.PULUMI_ACCESS_TOKEN;
  }, STEP_TIMEOUT);

  afterAll(async () => {
    if (repo && env) {
      await execFile("pulumi", ["destroy", "--stack", "prod", "--yes", "--non-interactive", "--skip-preview"], { cwd: repo, env }).catch(
        () => undefined,
      );
    }
    await emu?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  it(
    "once: the stack is created and its file, with the encryption salt, is committed",
    async () => {
      await job("Create the stack");
      const committed = execFileSync("git", ["show", "HEAD:Pulumi.prod.yaml"], { cwd: repo, encoding: "utf8" });
      expect(committed).toMatch(/encryptionsalt: /);
      expect(committed).toContain(emu.url);
      expect(committed).not.toContain(emu.token);
    },
    STEP_TIMEOUT,
  );

  it(
    "pull request: the preview shows the create and changes nothing",
    async () => {
      await emu.control.resetRequestCounts();
      const { output } = await job("Pull request");
      expect(output).toMatch(/\+ pulumi-nodejs:dynamic\/cms:Cluster: \(create\)/);
      expect(output).toMatch(/\+ \d+ to create/);
      expect(await emu.clusters()).toEqual([]);
      const counts = await emu.control.requestCounts();
      expect(Object.keys(counts).filter((k) => !k.startsWith("GET "))).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "merge: up creates the running cluster",
    async () => {
      await job("Merge");
      const clusters = await emu.clusters();
      expect(clusters).toHaveLength(1);
      expect(clusters[0]).toMatchObject({ status: "running", workers: 2 });
    },
    STEP_TIMEOUT,
  );

  it(
    "schedule: the drift gate passes, then fails once the cluster is scaled in the console",
    async () => {
      await job("Drift gate");
      const [cluster] = await emu.clusters();
      await emu.control.scale(cluster.id, 4);
      await emu.waitForCluster(cluster.id, (c) => c?.status === "running");
      const drifted = await job("Drift gate", { allowFailure: true });
      expect(drifted.code).not.toBe(0);
      expect(drifted.output).toMatch(/workers/);
    },
    STEP_TIMEOUT,
  );

  it(
    "merge again: up puts the program's workers back",
    async () => {
      await job("Merge");
      const [cluster] = await emu.clusters();
      expect(cluster).toMatchObject({ workers: 2, status: "running" });
    },
    STEP_TIMEOUT,
  );
});
