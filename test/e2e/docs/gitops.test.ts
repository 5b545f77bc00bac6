/**
 * docs/gitops.md, run as written: each bash block under its heading runs with `bash -eu` in a
 * git repository holding a Pulumi project that depends on the packed package (the jobs after
 * the first that installs leave out its `npm ci`, which made that checkout's node_modules), with the
 * variables the doc says come from the CI's secret store (the pull-request job and the drift gate
 * with a read-only token, as the doc says they may). Between the jobs, what a pipeline would see:
 * the preview changes nothing, the merge creates the cluster, the drift gate passes, then fails
 * once the cluster is changed in the console, with the values, which the pull request's preview
 * shows too; the merge beside a live `pulumi up` changes nothing and lets it finish, also on a
 * runner whose clock is 10 minutes ahead (a shifted JavaScript clock, test/support/skewed-clock.cjs:
 * the lock's age is the backend's to tell); after a job killed while creating, the merge removes
 * its lock, records the cluster and deploys; two merges started at the same moment never both
 * run, and the one that loses says so (exit 3 or 4). All of it twice: on a `file://` backend, and on a
 * `postgres://` one (a throwaway PostgreSQL server, `scripts/postgres`), whose locks the merge
 * job (`cms-gitops merge`) reads with `psql`; there also two merges that both lose (each update
 * finds the other's lock: test/support/lock-race-gate.ts), both exit 4.
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  execFile as runCli,
  findPulumi,
  killTree,
  LIFECYCLE_TIMINGS,
  lifecycleSkipped,
  REPO_ROOT,
  type RunResult,
  startLifecycleEmulator,
  type LifecycleEmulator,
} from "../lifecycle/harness.mjs";
import { envWithNode, installProject, nodeBin, packTarball, workDir } from "../../support/packages";
import { bashBlockAfter } from "../../support/docs";
import { LOST_RACE, MERGE_COMMAND, stackHistory } from "../../support/gitops-runners.mjs";
import { startLockRaceGate } from "../../support/lock-race-gate";
import { type BackendKind, lockKeys, type StateBackend, startBackend } from "../../support/state-backends";
import { postgresTarget } from "../../../src/gitops/locks";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 6 * 60_000;
const DOC = path.join(REPO_ROOT, "docs", "gitops.md");

// WORKERS and EXTRA stand for other commits of the program: what a person's `pulumi up`, or a job
// that gets killed, deploys beside the pipeline.
const PROGRAM = `"use strict";
const cms = require("pulumi-cms");
const cluster = new cms.Cluster("prod", { controlPlanes: 1, workers: Number(process.env.WORKERS || 2), nodeSize: "small" });
if (process.env.EXTRA) new cms.Cluster("extra", { controlPlanes: 1, workers: 1, nodeSize: "small" });
exports.clusterId = cluster.id;
`;
const READ_ONLY_TOKEN = "tok-gitops-read-only";
const SKEWED_CLOCK = path.join(REPO_ROOT, "test", "support", "skewed-clock.cjs");

const BACKENDS: BackendKind[] = ["file", "postgres"];

describe.skipIf(lifecycleSkipped()).each(BACKENDS)("docs/gitops.md, run as written against the emulator, on a %s backend", (kind) => {
  let emu: LifecycleEmulator;
  let backend: StateBackend;
  let work: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const doc = fs.readFileSync(DOC, "utf8");

  /** Whether a job's `npm ci` made the checkout's node_modules from its lock file already. */
  let installed = false;

  /**
   * Run one job of the doc; resolves with its output, rejects with it on a non-zero exit. The
   * first job that installs runs its block as written; a later one leaves out its `npm ci`, the
   * same line, which would only make the same node_modules again from the same lock file (a
   * runner's fresh checkout needs it; this one has it).
   */
  async function job(
    title: string,
    { allowFailure = false, extraEnv = {} as NodeJS.ProcessEnv } = {},
  ): Promise<{ code: number; output: string }> {
    const lines = bashBlockAfter(doc, `### ${title}`, "docs/gitops.md").split("\n");
    const installs = lines.includes("npm ci");
    const text = (installs && installed ? lines.filter((l) => l !== "npm ci") : lines).join("\n");
    installed ||= installs;
    return script(text, `job "${title}"`, { allowFailure, extraEnv });
  }

  /** Run `text` with `bash -eu` in `cwd`; resolves with its output, rejects with it on a non-zero exit. */
  async function script(
    text: string,
    what: string,
    { allowFailure = false, extraEnv = {} as NodeJS.ProcessEnv, cwd = repo } = {},
  ): Promise<{ code: number; output: string }> {
    try {
      const { stdout, stderr } = await execFile("bash", ["-eu", "-c", text], {
        cwd,
        env: { ...env, ...extraEnv },
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, output: stdout + stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      const output = `${err.stdout ?? ""}${err.stderr ?? ""}`;
      if (!allowFailure) throw new Error(`${what} failed (${err.code}):\n${output}`);
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
    backend = await startBackend(kind, path.join(work, "backend"));
    fs.mkdirSync(path.join(work, "home"));
    // What the doc says comes from the CI's secret store, and nothing of this machine's Pulumi.
    env = envWithNode(`${binDir}${path.delimiter}${node}`, {
      ...gitIdentity,
      CMS_TOKEN: emu.token,
      CMS_ENDPOINT: emu.url,
      PULUMI_CONFIG_PASSPHRASE: "gitops-passphrase",
      PULUMI_BACKEND_URL: backend.url,
      PULUMI_HOME: path.join(work, "home"),
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      JOB_TIMEOUT_MINUTES: "60",
      NO_COLOR: "1",
    });
    delete env.PULUMI_ACCESS_TOKEN;
    await emu.control.addToken({ token: READ_ONLY_TOKEN, permissions: ["read"], scope: "*", plan: "enterprise" });
  }, STEP_TIMEOUT);

  /** The jobs that only read, with a token that may only read. */
  const readOnly = { extraEnv: { CMS_TOKEN: READ_ONLY_TOKEN } };

  /** A `pulumi up` of another commit of the program, started beside the jobs. */
  function upBeside(extraEnv: NodeJS.ProcessEnv, onSpawn?: (pid: number) => void, cwd = repo): Promise<RunResult> {
    return runCli("pulumi", ["up", "--stack", "prod", "--yes", "--non-interactive", "--skip-preview"], {
      cwd,
      env: { ...env, ...extraEnv },
      onSpawn: (child) => onSpawn?.(child.pid!),
    });
  }

  /** The stack's locks (the self-managed backend's `.pulumi/locks`). */
  const lockFiles = () => lockKeys(backend);

  /** Another checkout of the repository (another runner, a person's laptop) on the same backend. */
  function otherCheckout(): string {
    const other = path.join(work, "other");
    if (!fs.existsSync(other)) fs.cpSync(repo, other, { recursive: true, verbatimSymlinks: true });
    return other;
  }

  /**
   * `during` runs while another checkout's `pulumi up` scales the cluster to `workers` and holds
   * the stack's lock: the service answers its reads with 503 until `during` is over, so the update
   * keeps polling for as long as the test needs. Then the update finishes, unharmed.
   */
  async function besideLiveUpdate(workers: number, during: () => Promise<void>): Promise<void> {
    const [cluster] = await emu.clusters();
    await emu.control.resetRequestCounts();
    await emu.control.injectFault({ kind: "status", status: 503, method: "GET", path: "/v1/clusters", count: 1_000_000 });
    let live: Promise<RunResult> | undefined;
    try {
      live = upBeside({ WORKERS: String(workers) }, undefined, otherCheckout());
      await eventually(async () => ((await emu.control.requestCounts())["GET /v1/clusters/:cluster_id"] ?? 0) > 0, {
        timeoutMs: 120_000,
        what: "the live update polling the scaled cluster",
      });
      expect(await emu.clusters()).toMatchObject([{ id: cluster.id, workers }]);
      await during();
      expect(lockFiles()).toHaveLength(1);
      await emu.control.clearFaults();
      const finished = await live;
      expect(finished.code, finished.output).toBe(0);
      // What `pulumi cancel` says when it cancels an update: never here.
      expect(finished.output).not.toMatch(/has been canceled/);
      expect(await emu.clusters()).toMatchObject([{ id: cluster.id, workers, status: "running" }]);
      expect(lockFiles()).toEqual([]);
    } finally {
      await emu.control.clearFaults();
      await live;
    }
  }

  afterAll(async () => {
    if (repo && env) {
      await execFile("pulumi", ["destroy", "--stack", "prod", "--yes", "--non-interactive", "--skip-preview"], { cwd: repo, env }).catch(
        () => undefined,
      );
    }
    await emu?.close();
    await backend?.stop();
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
      // The backend is in the layout the doc's lock clean-up assumes, as `pulumi login` made it.
      expect(backend.read(".pulumi/meta.yaml")).toMatch(/^version: 1$/m);
      // The runner the doc asks for is the one these jobs run on: Node.js 22 (the package's floor) and the CLI.
      expect(doc).toContain("**Node.js 22 or newer**");
      expect(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).engines.node).toBe(">=22");
    },
    STEP_TIMEOUT,
  );

  it(
    "pull request: the preview shows the create and changes nothing",
    async () => {
      await emu.control.resetRequestCounts();
      const { output } = await job("Pull request", readOnly);
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
    "schedule: the drift gate passes, then fails with the values once the cluster is changed in the console",
    async () => {
      await job("Drift gate", readOnly);
      const [cluster] = await emu.clusters();
      await emu.control.scale(cluster.id, 4);
      await emu.waitForCluster(cluster.id, (c) => c?.status === "running");
      await emu.control.resize(cluster.id, "medium");
      await emu.waitForCluster(cluster.id, (c) => c?.status === "running");
      const drifted = await job("Drift gate", { ...readOnly, allowFailure: true });
      expect(drifted.code).not.toBe(0);
      expect(drifted.output).toMatch(/workers\s*:\s*4 => 2/);
      expect(drifted.output).toMatch(/nodeSize\s*:\s*"medium" => "small"/);
    },
    STEP_TIMEOUT,
  );

  it(
    "pull request: the preview shows what the merge will put back, and still changes nothing",
    async () => {
      await emu.control.resetRequestCounts();
      const { output } = await job("Pull request", readOnly);
      expect(output).toMatch(/workers\s*:\s*4 => 2/);
      expect(output).toMatch(/nodeSize\s*:\s*"medium" => "small"/);
      const counts = await emu.control.requestCounts();
      expect(Object.keys(counts).filter((k) => !k.startsWith("GET "))).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "merge again: up puts the program's workers and node size back",
    async () => {
      await job("Merge");
      const [cluster] = await emu.clusters();
      expect(cluster).toMatchObject({ workers: 2, node_size: "small", status: "running" });
    },
    STEP_TIMEOUT,
  );

  it(
    "merge beside a live `pulumi up`: the merge fails (exit 3) and changes nothing; the live update finishes",
    async () => {
      await besideLiveUpdate(3, async () => {
        const merge = await job("Merge", { allowFailure: true });
        expect(merge.code, merge.output).toBe(3);
        expect(merge.output).toMatch(/the stack is locked by \S+@\S+ \(pid \d+\), taken \d+s ago by the backend's clock/);
        expect(merge.output).toContain("an update may be running; nothing was changed");
        expect(merge.output).not.toMatch(/has been canceled/);
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "merge on a runner whose clock is 10 minutes ahead, job timeout 5 minutes, beside a live `pulumi up`: the lock's age is the backend's, so the merge refuses it (exit 3)",
    async () => {
      const skewed = {
        NODE_OPTIONS: `--require ${SKEWED_CLOCK}`,
        CMS_TEST_CLOCK_OFFSET_MS: String(10 * 60_000),
        JOB_TIMEOUT_MINUTES: "5",
      };
      await besideLiveUpdate(2, async () => {
        // By this runner's clock, the live update's lock is older than the job timeout: what a
        // merge job that trusted it would have taken for a killed job's.
        const [lock] = lockFiles();
        const taken = JSON.parse(backend.read(lock) ?? "{}").timestamp;
        const ageByRunner = execFileSync("node", ["-e", "console.log((Date.now() - Date.parse(process.argv[1])) / 1000)", taken], {
          env: { ...env, ...skewed },
          encoding: "utf8",
        });
        expect(Number(ageByRunner)).toBeGreaterThan(5 * 60);
        const merge = await job("Merge", { allowFailure: true, extraEnv: skewed });
        expect(merge.code, merge.output).toBe(3);
        expect(merge.output).toMatch(
          /taken \d+s ago by the backend's clock \(less than the job timeout, 5 min\): an update may be running/,
        );
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "merge after a job killed while creating: its lock is removed, its cluster recorded, the program deployed",
    async () => {
      await emu.control.setTimings({ provisionSeconds: 8 });
      try {
        let pid = 0;
        const killed = upBeside({ EXTRA: "1" }, (p) => (pid = p));
        // Auto-named, so its name proves it is this stack's (an explicit name stops the job for a
        // person: cms-recover exits 2 naming the candidates, README "Running in CI").
        const extra = await eventually(async () => (await emu.clusters()).find((c) => c.name.startsWith("extra-")), {
          timeoutMs: 120_000,
          what: "the killed job's POST of cluster extra",
        });
        killTree(pid);
        await killed;
        // The killed job's lock, its create pending in the state.
        const [lock] = lockFiles();
        const taken = Date.parse(JSON.parse(backend.read(lock) ?? "{}").timestamp);
        // With no time left in the job timeout, the lock is a killed job's as soon as it is older than 0 s.
        await eventually(() => Date.now() - taken > 1_500, { timeoutMs: 10_000, what: "the lock to age" });
        const merge = await job("Merge", { extraEnv: { JOB_TIMEOUT_MINUTES: "0" } });
        expect(merge.output).toContain("removing the lock of a killed job");
        expect(merge.output).toContain(
          `cluster ${extra!.id} ("${extra!.name}") was created by the interrupted run (it carries the stack's own auto-name): recording it`,
        );
        // What it did, then what is left: said in that order, as the job's log shows them.
        expect(merge.output).toMatch(/recording it\n(.*\n)*cms-recover: no Cluster create is pending any more; run `pulumi up`/);
        expect(lockFiles()).toEqual([]);
        // The program of the main branch has no cluster "extra": the recorded one is deleted (up
        // waits until it is gone), and no second one was made.
        expect((await emu.clusters()).map((c) => c.name)).toEqual([expect.stringMatching(/^prod-/)]);
        const state = execFileSync("pulumi", ["stack", "export", "--stack", "prod"], { cwd: repo, env, encoding: "utf8" });
        expect(JSON.parse(state).deployment.pending_operations ?? []).toEqual([]);
      } finally {
        await emu.control.setTimings({ provisionSeconds: LIFECYCLE_TIMINGS.provisionSeconds });
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "merge on a backend whose locks the command does not read: it changes nothing, exits 64 and says what to do",
    async () => {
      const bucket = await script(MERGE_COMMAND, "cms-gitops merge", {
        allowFailure: true,
        extraEnv: { PULUMI_BACKEND_URL: "s3://team-bucket/pulumi" },
      });
      expect(bucket.code, bucket.output).toBe(64);
      expect(bucket.output).toContain("it reads the locks of file:// and postgres:// backends, not s3://");
      expect(bucket.output).toContain("s3://team-bucket/pulumi/.pulumi/locks/organization/clusters/prod/*.json");
      expect(bucket.output).toContain("cms-recover --stack prod");
      // A directory that holds no backend of the current layout: no lock found there proves nothing.
      const empty = path.join(work, "not-a-backend");
      fs.mkdirSync(empty, { recursive: true });
      const legacy = await script(MERGE_COMMAND, "cms-gitops merge", {
        allowFailure: true,
        extraEnv: { PULUMI_BACKEND_URL: `file://${empty}` },
      });
      expect(legacy.code, legacy.output).toBe(64);
      expect(legacy.output).toContain("`pulumi state upgrade`");
      expect(await emu.clusters()).toHaveLength(1);
    },
    STEP_TIMEOUT,
  );

  it(
    "a merge whose `pulumi up` loses the stack's lock to another merge that started after its own check: changes nothing and says another update started at the same moment (exit 4)",
    async () => {
      // The race made certain: the loser's `pulumi up` (a wrapper on its PATH) waits, once its
      // check is done, until the winner's update holds the lock.
      const { binDir } = await findPulumi();
      const gate = path.join(work, "race-gate");
      fs.mkdirSync(gate, { recursive: true });
      const [ready, go] = [path.join(gate, "ready"), path.join(gate, "go")];
      for (const f of [ready, go]) fs.rmSync(f, { force: true });
      fs.writeFileSync(
        path.join(gate, "pulumi"),
        `#!/bin/sh\nif [ "$1" = up ]; then : > "${ready}"; while [ ! -e "${go}" ]; do sleep 0.05; done; fi\nexec "${path.join(binDir, "pulumi")}" "$@"\n`,
        { mode: 0o755 },
      );
      const loser = script(MERGE_COMMAND, "cms-gitops merge", {
        cwd: otherCheckout(),
        allowFailure: true,
        extraEnv: { PATH: `${gate}${path.delimiter}${env.PATH}`, WORKERS: "3" },
      });
      await eventually(async () => fs.existsSync(ready), { timeoutMs: 120_000, intervalMs: 50, what: "the loser's pulumi up" });
      const winner = script(MERGE_COMMAND, "cms-gitops merge", { allowFailure: true, extraEnv: { WORKERS: "2" } });
      await eventually(async () => lockFiles().length > 0, { timeoutMs: 120_000, intervalMs: 20, what: "the winner's lock" });
      fs.writeFileSync(go, "");
      const [lostRun, wonRun] = await Promise.all([loser, winner]);
      expect(wonRun.code, wonRun.output).toBe(0);
      expect(lostRun.code, lostRun.output).toBe(4);
      expect(lostRun.output).toContain(`${LOST_RACE} (`);
      expect(lostRun.output).toContain("run the job again");
      expect(lockFiles()).toEqual([]);
      expect((await emu.clusters()).map((c) => c.name)).toEqual([expect.stringMatching(/^prod-/)]);
    },
    STEP_TIMEOUT,
  );

  it(
    "two merges of the stack started at the same moment: never both run; the one that loses changes nothing and says why (exit 3 or 4)",
    async () => {
      const checkouts = [repo, otherCheckout()];
      for (let round = 0; round < 2; round++) {
        const runs = await Promise.all(
          checkouts.map((cwd) =>
            script(MERGE_COMMAND, "cms-gitops merge", { cwd, allowFailure: true, extraEnv: { WORKERS: String(2 + (round % 2)) } }),
          ),
        );
        for (const run of runs) {
          expect([0, 3, 4], run.output).toContain(run.code);
          if (run.code === 3) expect(run.output).toContain("an update may be running; nothing was changed");
          if (run.code === 4) expect(run.output).toContain(`${LOST_RACE} (`);
          if (run.code === 4) expect(run.output).toContain("run the job again");
        }
        expect(lockFiles()).toEqual([]);
      }
      // Never two updates of the stack at once: each one it records ends before the next starts.
      const updates = stackHistory({ project: "clusters", repo, env }).filter((u) => u.kind === "update");
      for (let i = 1; i < updates.length; i++) expect(updates[i].start).toBeGreaterThanOrEqual(updates[i - 1].end);
      expect((await emu.clusters()).map((c) => c.name)).toEqual([expect.stringMatching(/^prod-/)]);
    },
    STEP_TIMEOUT,
  );

  it.runIf(kind === "postgres")(
    "two merges whose `pulumi up`s each write their lock before either looks for others (neither wins): neither runs, both change nothing and say another update started at the same moment (exit 4)",
    async () => {
      // The race made certain by a proxy before the backend: both locks written, then both looked for.
      const gate = await startLockRaceGate(backend.url, `${postgresTarget(backend.url).prefix}.pulumi/locks/organization/clusters/prod/`);
      const updatesBefore = stackHistory({ project: "clusters", repo, env }).length;
      const shapes = async () => (await emu.clusters()).map((c) => [c.id, c.status, c.workers]);
      const clustersBefore = await shapes();
      let runs: { code: number; output: string }[];
      try {
        runs = await Promise.all(
          [repo, otherCheckout()].map((cwd, i) =>
            script(MERGE_COMMAND, "cms-gitops merge", {
              cwd,
              allowFailure: true,
              extraEnv: { PULUMI_BACKEND_URL: gate.url, WORKERS: String(4 + i) },
            }),
          ),
        );
      } finally {
        await gate.close();
      }
      expect(gate.released()).toBe(2);
      for (const run of runs) {
        expect(run.output).toMatch(/the stack is currently locked by 1 lock\(s\)/);
        expect(run.code, run.output).toBe(4);
        expect(run.output).toContain(`${LOST_RACE} (`);
        expect(run.output.trim().split("\n").pop()).toMatch(
          /run the job again\. This update changed nothing\. \(Not `pulumi cancel`, which the CLI's message above may suggest: that lock is the other update's\.\)$/,
        );
      }
      expect(lockFiles()).toEqual([]);
      expect(stackHistory({ project: "clusters", repo, env })).toHaveLength(updatesBefore);
      expect(await shapes()).toEqual(clustersBefore);
    },
    STEP_TIMEOUT,
  );
});
