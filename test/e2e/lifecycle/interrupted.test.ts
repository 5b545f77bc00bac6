/**
 * Interrupted pipelines, with the real CLI against the emulator: a CI job killed in the middle of
 * `pulumi up` or `pulumi destroy` (SIGKILL of the CLI and every process under it, detected from
 * the emulator's state, never after a fixed sleep), then the pipeline's next run:
 * `pulumi cancel --yes` and the same command again.
 *
 * After it: the command exits 0; the service holds exactly the stack's clusters (plus the ones
 * the stack never owned, untouched); `preview --expect-no-changes` passes. The engine keeps a
 * killed create's pending operation until a refresh resolves it, so the recovery recipe's
 * `pulumi refresh --yes --clear-pending-creates` (docs/killed-jobs.md) then leaves none.
 *
 * Also without a kill: `up --replace`, two stacks declaring the same resource, destroy then up.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seededName } from "../../support/autoname";
import { bashBlockAfter } from "../../support/doc-blocks.mjs";
import path from "node:path";
import {
  alive,
  execFile,
  REPO_ROOT,
  CLUSTER_TYPE,
  createProject,
  descendants,
  eventually,
  findPulumi,
  killTree,
  LIFECYCLE_TIMINGS,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
  type RunResult,
} from "./harness.mjs";

const STEP_TIMEOUT = 6 * 60_000;
/** Long enough for a kill to land while the cluster provisions, scales or deletes. */
const KILL_TIMINGS = { provisionSeconds: 6, scaleSeconds: 5, deleteSeconds: 5 };
const RESOURCE = "cluster";

describe.skipIf(lifecycleSkipped())("interrupted pipelines: a killed job never leaves an orphaned or duplicate cluster", () => {
  let emu: LifecycleEmulator;
  const projects: PulumiProject[] = [];
  let count = 0;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator(KILL_TIMINGS);
  }, STEP_TIMEOUT);
  afterAll(() => teardown(projects, emu), STEP_TIMEOUT);

  /** A fresh project (its own URNs) driven by the harness's default program. */
  async function project(config: Record<string, string | number> = {}, stack = "dev", name = `cms-kill-${++count}`) {
    const p = await createProject({ name, stack, config: { ...emu.stackConfig(), ...config }, secretConfig: emu.secretConfig() });
    projects.push(p);
    return p;
  }

  /** What the service held and how many projects there were when the current test began. */
  let atStart = { clusters: new Set<string>(), projects: 0 };
  beforeEach(async () => {
    atStart = { clusters: await ids(), projects: projects.length };
  });

  /** The stack's first `up`, before the step a test kills: nothing to kill in it, so the quick timings. */
  async function upBeforeTheKill(p: PulumiProject) {
    await emu.control.setTimings(LIFECYCLE_TIMINGS);
    try {
      await p.up();
    } finally {
      await emu.control.setTimings(KILL_TIMINGS);
    }
  }

  const cmdline = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      return "";
    }
  };
  /** The parent pid, from /proc/PID/stat (after the command's name, which may hold spaces). */
  const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
  const urnOf = (p: PulumiProject) => `urn:pulumi:${p.stack}::${p.name}::${CLUSTER_TYPE}::${RESOURCE}`;
  const byName = async (name: string) => (await emu.clusters()).filter((c) => c.name === name);
  /** Clusters the service did not hold at the time of `known` (the stack's first cluster's name is not known before its seed is). */
  const newSince = async (known: Set<string>) => (await emu.clusters()).filter((c) => !known.has(c.id));
  const ids = async () => new Set((await emu.clusters()).map((c) => c.id));

  /**
   * Run `args` and SIGKILL the CLI with every process under it once `reached()` holds (polled on
   * the emulator). Returns the killed run's result and the pids that were killed.
   */
  async function killWhen(p: PulumiProject, args: string[], reached: () => Promise<boolean>, what: string) {
    let pid: number | undefined;
    const run = p.spawn(args, { onSpawn: (c) => (pid = c.pid) });
    let killed: number[] = [];
    const done = { finished: false };
    void run.then(() => (done.finished = true));
    await eventually(async () => done.finished || (await reached()), { timeoutMs: 120_000, intervalMs: 25, what });
    expect(done.finished, `${what}: the command ended before the kill point`).toBe(false);
    killed = killTree(pid!);
    const result = await run;
    expect(result.signal ?? result.code).toBeTruthy();
    return { result, killed };
  }

  /** The stack's first `up`, killed while its auto-named cluster provisions: that cluster. */
  async function killedWhileProvisioning(p: PulumiProject) {
    const known = await ids();
    await killWhen(
      p,
      ["up", "--yes", "--skip-preview"],
      async () => (await newSince(known)).some((c) => c.status === "provisioning"),
      "provisioning",
    );
    const [orphan] = await byName(await seededName(p));
    return orphan;
  }

  /** The pipeline's next run: `pulumi cancel --yes`, then the same command (`up` or `destroy`). */
  async function nextRun(p: PulumiProject, command: "up" | "destroy"): Promise<RunResult> {
    await p.cancel();
    const result = await p[command]([], { allowFailure: true });
    expect(result.code, result.output.split("\n").slice(-30).join("\n")).toBe(0);
    return result;
  }

  /** The recovery recipe's `cms-recover` (the package's bin), expected to exit with `code`. */
  async function recover(p: PulumiProject, args: string[] = [], code = 0) {
    const r = await execFile(process.execPath, [path.join(REPO_ROOT, "dist", "recover", "cli.js"), ...args], {
      cwd: p.dir,
      env: p.cliEnv(),
    });
    expect(r.code, r.output).toBe(code);
    return r;
  }

  /**
   * An explicit name proves nothing: `cms-recover` changes nothing, exits 2 and names the
   * candidate with the command to record it; a person (here: the test, which knows) runs it.
   */
  async function recoverExplicit(p: PulumiProject, ours: string, others: string[] = []) {
    const undecided = await recover(p, [], 2);
    expect(undecided.output).toContain(ours);
    expect(undecided.output).toContain(`--adopt ${ours}`);
    for (const id of others) expect(undecided.output).not.toContain(id);
    expect((await pendingOperations(p)).length).toBe(1);
    return recover(p, ["--adopt", ours]);
  }

  const pendingOperations = async (p: PulumiProject) => (await p.exportStack()).state.deployment.pending_operations ?? [];

  /**
   * Criteria 2-4: the service holds exactly the stack's clusters plus `foreign` (untouched), a
   * no-change preview passes, and the recovery recipe's refresh leaves no pending operation.
   *
   * The stack's clusters are the ones made since the test began (the earlier tests' stacks, idle
   * since, were held to the same at their end), less those of the test's other stacks. The
   * refresh finds nothing to change, so the state it leaves is the one the preview found nothing
   * to change in.
   */
  async function assertClean(p: PulumiProject, foreign: string[] = [], { alive: expectAlive = true } = {}) {
    const owned = (await p.clusterResources()).map((r) => r.id as string);
    const ofOthers = new Set<string>();
    for (const q of projects.slice(atStart.projects).filter((q) => q !== p)) {
      for (const r of await q.clusterResources().catch(() => [])) ofOthers.add(r.id as string);
    }
    const onService = (await emu.clusters())
      .map((c) => c.id)
      .filter((id) => !atStart.clusters.has(id) && !ofOthers.has(id) && !foreign.includes(id));
    expect(onService.sort()).toEqual([...owned].sort());
    expect(owned).toHaveLength(expectAlive ? 1 : 0);
    for (const id of foreign) expect((await emu.clusters()).some((c) => c.id === id)).toBe(true);
    if (expectAlive) await p.preview(["--expect-no-changes"]);
    await p.refresh(["--clear-pending-creates", "--expect-no-changes"]);
    expect(await pendingOperations(p)).toEqual([]);
    return owned;
  }

  it(
    "(a) create of an auto-named cluster, killed while it provisions: the next up takes it over",
    async () => {
      const p = await project();
      const known = await ids();
      await killWhen(
        p,
        ["up", "--yes", "--skip-preview"],
        async () => (await newSince(known)).some((c) => c.status === "provisioning"),
        "provisioning",
      );
      // The seed was recorded before the create began: the orphan carries the stack's own name,
      // which every preview from now on shows.
      const name = await seededName(p);
      const [orphan] = await newSince(known);
      expect(orphan.name).toBe(name);
      await p.cancel();
      expect((await p.preview([])).output).toContain(name);
      const next = await nextRun(p, "up");
      expect(next.output).toMatch(/taken over/);
      const owned = await assertClean(p);
      expect(owned).toEqual([orphan.id]);
    },
    STEP_TIMEOUT,
  );

  it(
    "(f) killed just after the POST was sent, before its reply: the cluster made after the kill is taken over",
    async () => {
      const p = await project();
      await emu.control.injectFault({ kind: "latency", latencyMs: 1_500, method: "POST", path: "/v1/clusters", count: 1 });
      const posts = async () => (await emu.control.requestCounts())["POST /v1/clusters"] ?? 0;
      const before = await posts();
      await killWhen(p, ["up", "--yes", "--skip-preview"], async () => (await posts()) > before, "POST sent");
      const name = await seededName(p);
      // The service finishes the request it received although nobody waits for the answer.
      await eventually(async () => (await byName(name)).length === 1, { timeoutMs: 10_000, what: "the late create" });
      await nextRun(p, "up");
      const owned = await assertClean(p);
      expect(owned).toEqual((await byName(name)).map((c) => c.id));
    },
    STEP_TIMEOUT,
  );

  it(
    "(b) explicit name, a same-named same-shaped console cluster exists: cms-recover names only ours and records it with --adopt",
    async () => {
      const p = await project({ name: "pinned-b" });
      const console = (await emu.api("POST", "/v1/clusters", { name: "pinned-b", control_planes: 1, workers: 2, node_size: "small" })).body
        .id as string;
      await emu.waitForCluster(console, (c) => c?.status === "running", 30_000);
      await killWhen(p, ["up", "--yes", "--skip-preview"], async () => (await byName("pinned-b")).length === 2, "our POST");
      const ours = (await byName("pinned-b")).find((c) => c.id !== console)!;
      await p.cancel();
      const rec = await recoverExplicit(p, ours.id, [console]);
      expect(rec.output).toContain(`cluster ${ours.id}`);
      await nextRun(p, "up");
      expect(await assertClean(p, [console])).toEqual([ours.id]);
      expect((await emu.clusters()).find((c) => c.id === console)).toMatchObject({ status: "running", workers: 2 });
      // Not this stack's to delete: the test removes it, so later tests see only their own.
      await emu.api("DELETE", `/v1/clusters/${console}`);
      await emu.waitForCluster(console, (c) => c === undefined, 30_000);
    },
    STEP_TIMEOUT,
  );

  it(
    "(a') auto-named, recovered with cms-recover before the next up: no pending operation at all",
    async () => {
      const p = await project();
      const orphan = await killedWhileProvisioning(p);
      await p.cancel();
      // --dry-run says what a run would do, and does nothing.
      const dry = (await recover(p, ["--dry-run"])).output;
      expect(dry).toContain(`cluster ${orphan.id} ("${orphan.name}") was created by the interrupted run`);
      expect(dry).toContain("would record it");
      expect(dry).not.toContain("recording it");
      expect(dry).toContain("dry run: the stack was not changed");
      expect(await pendingOperations(p)).toHaveLength(1);
      // Recorded once it runs: read at once, so the next up has nothing to do for it.
      await emu.waitForCluster(orphan.id, (c) => c?.status === "running");
      const recovered = (await recover(p)).output;
      expect(recovered).toContain(`cluster ${orphan.id} ("${orphan.name}") was created by the interrupted run`);
      expect(recovered).toContain("recording it");
      expect(await pendingOperations(p)).toEqual([]);
      const [recorded] = await p.clusterResources();
      expect(recorded.initErrors ?? []).toEqual([]);
      expect(recorded.outputs.status).toBe("running");
      const up = (await nextRun(p, "up")) as Awaited<ReturnType<PulumiProject["up"]>>;
      expect(up.steps.filter((s) => s.type === CLUSTER_TYPE).map((s) => s.op)).not.toContain("update");
      expect(up.output).not.toMatch(/~ 1 updated/);
      expect(await pendingOperations(p)).toEqual([]);
      expect(await assertClean(p)).toEqual([orphan.id]);
      // Idempotent: nothing pending, nothing done.
      expect((await recover(p)).output).toMatch(/nothing to do/);
    },
    STEP_TIMEOUT,
  );

  it(
    "(a'') auto-named, recorded by cms-recover while it still provisions, then the merge job's `up --refresh`: the up waits until it is running",
    async () => {
      const p = await project();
      // Provisioning outlasts the recovery and the refresh, as a real cluster's minutes do.
      await emu.control.setTimings({ provisionSeconds: 3_600 });
      try {
        const orphan = await killedWhileProvisioning(p);
        await p.cancel();
        expect((await recover(p)).output).toContain(`cluster ${orphan.id} is not running yet: the next \`pulumi up\` waits for it`);
        // The refresh reads it still provisioning (and the engine drops the recorded init error).
        let output = "";
        let ended = false;
        const up = p
          .spawn(["up", "--yes", "--skip-preview", "--refresh"], { onOutput: (d: string) => (output += d) })
          .finally(() => (ended = true));
        await eventually(() => ended || /cluster updating/.test(output), {
          timeoutMs: 120_000,
          what: "the update waiting for the cluster",
        });
        emu.skipAhead(3_600_000);
        const result = await up;
        expect(result.code, result.output).toBe(0);
        expect(result.output).toMatch(/~ 1 updated/);
        const [recorded] = await p.clusterResources();
        expect(recorded.outputs.status).toBe("running");
        expect((await emu.clusters()).find((c) => c.id === orphan.id)?.status).toBe("running");
        expect(await assertClean(p)).toEqual([orphan.id]);
      } finally {
        await emu.control.setTimings(KILL_TIMINGS);
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "(c) in-place update killed while the cluster scales: the next up finishes it",
    async () => {
      const p = await project({ workers: 1 });
      await upBeforeTheKill(p);
      const [id] = (await p.clusterResources()).map((r) => r.id as string);
      await p.setConfig("workers", 3);
      await killWhen(
        p,
        ["up", "--yes", "--skip-preview"],
        async () => (await emu.clusters()).some((c) => c.id === id && c.status === "scaling"),
        "scaling",
      );
      await nextRun(p, "up");
      expect(await assertClean(p)).toEqual([id]);
      expect((await emu.clusters()).find((c) => c.id === id)).toMatchObject({ workers: 3, status: "running" });
    },
    STEP_TIMEOUT,
  );

  it(
    "(d) create-before-delete replacement (auto-name), killed after the new cluster was created",
    async () => {
      const p = await project({ controlPlanes: 1 });
      await upBeforeTheKill(p);
      const [oldId] = (await p.clusterResources()).map((r) => r.id as string);
      await p.setConfig("controlPlanes", 3);
      const fresh = await seededName(p, 1);
      await killWhen(p, ["up", "--yes", "--skip-preview"], async () => (await byName(fresh)).length > 0, "replacement created");
      const [replacement] = await byName(fresh);
      await nextRun(p, "up");
      const owned = await assertClean(p);
      expect(owned).toEqual([replacement.id]);
      expect((await emu.clusters()).some((c) => c.id === oldId)).toBe(false);
    },
    STEP_TIMEOUT,
  );

  it(
    "(d) delete-before-replace (explicit name), killed after the new cluster was created: cms-recover names it, --adopt records it",
    async () => {
      const p = await project({ name: "pinned-d", controlPlanes: 1 });
      await upBeforeTheKill(p);
      const [oldId] = (await p.clusterResources()).map((r) => r.id as string);
      await p.setConfig("controlPlanes", 3);
      const fresh = async () => (await byName("pinned-d")).filter((c) => c.id !== oldId);
      await killWhen(p, ["up", "--yes", "--skip-preview"], async () => (await fresh()).length > 0, "replacement created");
      const [replacement] = await fresh();
      await p.cancel();
      expect((await recoverExplicit(p, replacement.id)).output).toContain(`cluster ${replacement.id}`);
      await nextRun(p, "up");
      expect(await assertClean(p)).toEqual([replacement.id]);
      expect((await emu.clusters()).some((c) => c.id === oldId)).toBe(false);
    },
    STEP_TIMEOUT,
  );

  it(
    "(e) destroy killed while the cluster is deleting: the next destroy finishes",
    async () => {
      const p = await project();
      await upBeforeTheKill(p);
      const [id] = (await p.clusterResources()).map((r) => r.id as string);
      await killWhen(
        p,
        ["destroy", "--yes", "--skip-preview"],
        async () => (await emu.clusters()).some((c) => c.id === id && c.status === "deleting"),
        "deleting",
      );
      await nextRun(p, "destroy");
      await assertClean(p, [], { alive: false });
      expect((await emu.clusters()).some((c) => c.id === id)).toBe(false);
    },
    STEP_TIMEOUT,
  );

  // `--refresh` is what the GitOps merge job runs: the refresh reads the stack's cluster before the
  // update creates the replacement, and the host was once seen left running after that kill.
  it.each([
    { run: "a create", refresh: false },
    { run: "`up --refresh` replacing a cluster", refresh: true },
  ])(
    "6. only the CLI's process group killed during $run: docs/killed-jobs.md's commands list what it left, the provider hosts exit within 30 s, the language host lingers until those commands end it",
    async ({ refresh }) => {
      const p = await project();
      if (refresh) {
        await upBeforeTheKill(p);
        await p.setConfig("controlPlanes", 3);
      }
      const known = await ids();
      let pid: number | undefined;
      const args = ["up", "--yes", "--skip-preview", ...(refresh ? ["--refresh"] : [])];
      const run = p.spawn(args, { onSpawn: (c) => (pid = c.pid) });
      await eventually(async () => (await newSince(known)).some((c) => c.status === "provisioning"), {
        timeoutMs: 120_000,
        intervalMs: 25,
        what: "provisioning",
      });
      const under = descendants(pid!);
      const hosts = under.filter((q) => cmdline(q).includes("dynamic-provider"));
      const languageHosts = under.filter((q) => cmdline(q).includes("pulumi-language-nodejs"));
      expect(hosts.length).toBeGreaterThan(0);
      expect(languageHosts.length).toBeGreaterThan(0);
      process.kill(-pid!, "SIGKILL"); // what a runner that kills the job's process group does
      await run;
      // The `node` host's parent is the `/bin/sh` wrapper; the wrapper's is the reaper (pid 1 here).
      const wrappers = [...new Set(hosts.map(parentOf))];
      expect(wrappers.map(cmdline).every((c) => c.includes("pulumi-resource-pulumi-nodejs"))).toBe(true);
      const reaper = parentOf(wrappers[0]);
      const [listLeftovers, endLeftovers] = bashBlockAfter(
        readFileSync(path.join(REPO_ROOT, "docs", "killed-jobs.md"), "utf8"),
        "## Processes a killed job leaves",
        "docs/killed-jobs.md",
      )
        .trim()
        .split("\n")
        .map((line) => line.replaceAll("-v r=1", `-v r=${reaper}`));
      const listed = (await execFile("bash", ["-c", listLeftovers])).stdout.split("\n").map((line) => Number(line.trim().split(/\s+/)[0]));
      expect(listed).toEqual(expect.arrayContaining([...wrappers, ...languageHosts]));
      // "About 30 s" (two missed probes 10 s apart, each of up to 5 s): a loaded machine's margin on top.
      await eventually(() => hosts.every((h) => !alive(h)), { timeoutMs: 40_000, intervalMs: 500, what: "the provider hosts to exit" });
      expect(languageHosts.every(alive), "the CLI's language host lingers, as docs/killed-jobs.md says").toBe(true);
      // Only this test's leftovers: other jobs' on a shared machine are theirs to end.
      const ours = endLeftovers.replace(
        "ps -eo pid,ppid,pgid,args",
        `ps -o pid,ppid,pgid,args -p ${[...wrappers, ...languageHosts].join(",")}`,
      );
      expect(ours).not.toBe(endLeftovers);
      expect((await execFile("bash", ["-c", ours])).code).toBe(0);
      await eventually(() => languageHosts.every((h) => !alive(h)), {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: "the language host to end",
      });
      await nextRun(p, "up");
      await assertClean(p);
    },
    STEP_TIMEOUT,
  );

  // Nothing is killed here, so no step needs a window to kill in: the emulator's usual quick timings.
  describe("without a kill", () => {
    beforeAll(() => emu.control.setTimings(LIFECYCLE_TIMINGS));
    afterAll(() => emu.control.setTimings(KILL_TIMINGS));

    it(
      "`up --replace` makes a new cluster and deletes the old one",
      async () => {
        const p = await project();
        await p.up();
        const [oldId] = (await p.clusterResources()).map((r) => r.id as string);
        await p.up(["--replace", urnOf(p)]);
        const [newId] = (await p.clusterResources()).map((r) => r.id as string);
        expect(newId).not.toBe(oldId);
        expect(await assertClean(p)).toEqual([newId]);
      },
      STEP_TIMEOUT,
    );

    it(
      "two stacks of one project declaring the same resource each get their own cluster",
      async () => {
        const dev = await project({}, "dev", "cms-kill-twins");
        const prod = await project({}, "prod", "cms-kill-twins");
        await Promise.all([dev.up(), prod.up()]);
        const [a] = (await dev.clusterResources()).map((r) => r.id);
        const [b] = (await prod.clusterResources()).map((r) => r.id);
        expect(a).not.toBe(b);
        await assertClean(dev);
        await assertClean(prod);
      },
      STEP_TIMEOUT,
    );

    it(
      "destroy then up creates a fresh cluster",
      async () => {
        const p = await project();
        await p.up();
        const [first] = (await p.clusterResources()).map((r) => r.id);
        await p.destroy();
        await p.up();
        const [second] = (await p.clusterResources()).map((r) => r.id);
        expect(second).not.toBe(first);
        expect(await assertClean(p)).toEqual([second]);
      },
      STEP_TIMEOUT,
    );
  });
});
