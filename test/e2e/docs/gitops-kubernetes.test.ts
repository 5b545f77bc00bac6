/**
 * docs/gitops.md's "Stacks with apps", run as written: the pull-request and merge jobs (each bash
 * block under its heading, `bash -eu`) on a stack whose program deploys an app through
 * `kubernetesProvider`, installed from the packed package with `@pulumi/kubernetes`, against
 * `cms-emulator --kubernetes` with the real Kubernetes plugin. Across a credential rotated in the
 * console, then a rotation of the job's `CMS_TOKEN` (the old one revoked), both jobs pass with
 * the app kept (same uid), nothing replaced and nothing dropped from the state.
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, REPO_ROOT, startLifecycleEmulator, type LifecycleEmulator } from "../lifecycle/harness.mjs";
import { bashBlockAfter } from "../../support/docs";
import { kubectl, kubernetesPluginDir, kubernetesUnavailable } from "../../support/kubernetes";
import { envWithNode, installProject, nodeBin, packTarball, workDir } from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 10 * 60_000;
const DOC = path.join(REPO_ROOT, "docs", "gitops.md");
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable({ plugin: true });

const PROGRAM = `"use strict";
const k8s = require("@pulumi/kubernetes");
const cms = require("pulumi-cms");
const cluster = new cms.Cluster("prod", { controlPlanes: 1, workers: 2, nodeSize: "small" });
const provider = cms.kubernetesProvider(cluster);
const labels = { app: "web" };
new k8s.apps.v1.Deployment("web", {
  metadata: { name: "web", labels },
  spec: {
    replicas: 2,
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx:1.27-alpine" }] } },
  },
}, { provider });
exports.clusterId = cluster.id;
`;
const TOKENS = { write: ["tok-gitops-apps-1", "tok-gitops-apps-2"], read: ["tok-gitops-apps-read-1", "tok-gitops-apps-read-2"] };

describe.skipIf(skip !== undefined)(`docs/gitops.md on a stack with an app${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let emu: LifecycleEmulator;
  let work: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const doc = fs.readFileSync(DOC, "utf8");
  /** The CI's secret store: the job tokens in use. */
  let current = { write: TOKENS.write[0] as string, read: TOKENS.read[0] as string };

  async function job(title: string, token: string): Promise<string> {
    try {
      const { stdout, stderr } = await execFile("bash", ["-eu", "-c", bashBlockAfter(doc, `### ${title}`, "docs/gitops.md")], {
        cwd: repo,
        env: { ...env, CMS_TOKEN: token },
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout + stderr;
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      throw new Error(`job "${title}" failed (${err.code}):\n${err.stdout ?? ""}${err.stderr ?? ""}`);
    }
  }
  const stackExport = () =>
    JSON.parse(execFileSync("pulumi", ["stack", "export", "--stack", "prod"], { cwd: repo, env, encoding: "utf8" })).deployment;
  const urns = () => (stackExport().resources as Array<{ urn: string }>).map((r) => r.urn).sort();
  /** The Deployment's uid, read with the cluster's current kubeconfig. */
  async function deploymentUid(): Promise<string> {
    const [cluster] = await emu.clusters();
    const kubeconfig = (await emu.api("GET", `/v1/clusters/${cluster.id}/kubeconfig`)).text;
    const out = await kubectl(kubeconfig, ["get", "deployment/web", "-o", "jsonpath={.metadata.uid}"]);
    expect(out).toMatchObject({ code: 0, stderr: "" });
    return out.stdout;
  }
  /** Both jobs, as a pull request and its merge run them, with the secret store's tokens. */
  async function pullRequestAndMerge(): Promise<void> {
    const preview = await job("Pull request", current.read);
    expect(preview).not.toMatch(/unreachable|warning: (?!using pulumi-resource-kubernetes from \$PATH)/i);
    expect(preview).not.toMatch(/\+\+|\+-|to replace|to delete/);
    const merge = await job("Merge", current.write);
    expect(merge).not.toMatch(/unreachable|warning: (?!using pulumi-resource-kubernetes from \$PATH)|replaced|deleted/i);
  }

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    emu = await startLifecycleEmulator({ kubernetes: {} });
    for (const token of TOKENS.write) {
      await emu.control.addToken({ token, permissions: ["read", "write"], scope: "*", plan: "enterprise" });
    }
    for (const token of TOKENS.read) await emu.control.addToken({ token, permissions: ["read"], scope: "*", plan: "enterprise" });
    work = workDir("gitops-apps");
    repo = path.join(work, "repo");
    const node = nodeBin(22);
    const tarball = packTarball(work);
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(path.join(repo, "Pulumi.yaml"), "name: apps\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(repo, "index.js"), PROGRAM);
    const version = (pkg: string) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
    // Without the SDK's install script, which would download the plugin (the CI puts it on PATH).
    await installProject(
      repo,
      {
        name: "apps",
        dependencies: {
          "pulumi-cms": `file:${tarball}`,
          "@pulumi/pulumi": version("@pulumi/pulumi"),
          "@pulumi/kubernetes": version("@pulumi/kubernetes"),
        },
      },
      envWithNode(node),
      ["--ignore-scripts"],
    );
    fs.mkdirSync(path.join(work, "backend"));
    fs.mkdirSync(path.join(work, "home"));
    env = envWithNode(`${kubernetesPluginDir()}${path.delimiter}${binDir}${path.delimiter}${node}`, {
      CMS_ENDPOINT: emu.url,
      PULUMI_CONFIG_PASSPHRASE: "gitops-passphrase",
      PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
      PULUMI_HOME: path.join(work, "home"),
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      JOB_TIMEOUT_MINUTES: "60",
      // `npm ci` of the jobs, like the install above, without the SDK's plugin download.
      npm_config_ignore_scripts: "true",
      NO_COLOR: "1",
    });
    delete env.PULUMI_ACCESS_TOKEN;
    delete env.CMS_TOKEN;
    // "Create the stack" minus its git commit (this repository is no git checkout).
    execFileSync("pulumi", ["login", env.PULUMI_BACKEND_URL as string], { cwd: repo, env, stdio: "ignore" });
    execFileSync("pulumi", ["stack", "init", "prod", "--non-interactive"], { cwd: repo, env, stdio: "ignore" });
    execFileSync("pulumi", ["config", "set", "--stack", "prod", "cms:endpoint", emu.url], { cwd: repo, env, stdio: "ignore" });
    await job("Merge", current.write);
  }, STEP_TIMEOUT);

  afterAll(async () => {
    if (repo && env) {
      await execFile("pulumi", ["destroy", "--stack", "prod", "--yes", "--non-interactive", "--skip-preview"], {
        cwd: repo,
        env: { ...env, CMS_TOKEN: current.write },
      }).catch(() => undefined);
    }
    await emu?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  it(
    "after a credential rotation in the console, the pull-request and merge jobs pass, the app kept",
    async () => {
      const uid = await deploymentUid();
      const resources = urns();
      const [cluster] = await emu.clusters();
      await emu.control.rotateKubeconfig(cluster.id);
      await pullRequestAndMerge();
      expect(await deploymentUid()).toBe(uid);
      expect(urns()).toEqual(resources);
    },
    STEP_TIMEOUT,
  );

  it(
    "after the job tokens are rotated (the old ones revoked), the same; the state never held a token",
    async () => {
      const uid = await deploymentUid();
      const resources = urns();
      const old = current;
      current = { write: TOKENS.write[1] as string, read: TOKENS.read[1] as string };
      for (const token of [old.write, old.read]) await emu.control.revokeToken(token);
      await pullRequestAndMerge();
      expect(await deploymentUid()).toBe(uid);
      expect(urns()).toEqual(resources);
      const exported = JSON.stringify(stackExport());
      for (const token of [...TOKENS.write, ...TOKENS.read]) expect(exported).not.toContain(token);
    },
    STEP_TIMEOUT,
  );
});
