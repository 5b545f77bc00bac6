import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  killTree,
  LIFECYCLE_TIMINGS,
  type LifecycleEmulator,
  lifecycleSkipped,
  startLifecycleEmulator,
} from "../lifecycle/harness.mjs";
import {
  type JobResult,
  LOCKED,
  LOST_RACE,
  makeRunner,
  mergeUp,
  type Runner,
  runJob,
  runMergeCommand,
  stackClusters,
  stackHistory,
} from "../../support/gitops-runners.mjs";
import { startTeam, type Team } from "../../support/gitops-team";
import { lockKeys, type StateBackend } from "../../support/state-backends";

const STEP_TIMEOUT = 10 * 60_000;
const RUNNERS = 8;
const CLUSTERS = 5;
const COMMUNITY_TOKEN = "tok-runners-community";

describe.skipIf(lifecycleSkipped())("docs/gitops.md on many runners sharing a PostgreSQL backend and a Community token", () => {
  let emu: LifecycleEmulator;
  let backend: StateBackend;
  let team: Team;
  let work: string;
  let runners: Runner[] = [];
  let racers: Runner[] = [];

  /** The clusters of `project` on the service, by the auto-names its program gives them. */
  async function clustersOf(project: string) {
    return (await emu.clusters()).filter((c) => new RegExp(`^${project}-\\d+-`).test(c.name));
  }

  /**
   * No 429 reaches a user: the job's output names none, and says "rate limit" only in the progress
   * line of a Cluster waiting for the token's next window (the runners share one budget, so the
   * service refuses some calls; the provider waits and sends them again), never in an error.
   */
  function expectNoRateLimitError(run: JobResult) {
    expect(run.output, run.output).not.toMatch(/\b429\b/);
    for (const line of run.output.split("\n").filter((l) => /rate limit/i.test(l))) {
      expect(line).toMatch(/^ [ +~-] +pulumi-nodejs:dynamic\/cms:Cluster \S+ \w+ \(\d+s\) rate limited by the service; attempt \d+ in \d/);
    }
  }

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    await emu.control.addToken({ token: COMMUNITY_TOKEN, permissions: ["read", "write"], scope: "*", plan: "community" });
    // What every runner gets from the CI's secret store; nothing of this machine's Pulumi.
    team = await startTeam("runners", emu.url, COMMUNITY_TOKEN, {
      // The merge job's `npm ci` reads this machine's npm cache, as a CI cache would give it.
      npm_config_cache: path.join(process.env.HOME ?? "/root", ".npm"),
    });
    ({ work, backend } = team);
    const { installed, env } = team;
    runners = Array.from({ length: RUNNERS }, (_, i) =>
      makeRunner({ dir: path.join(work, `runner-${i}`), installed, env, project: `runner-${i}`, ownNodeModules: i === 0 }),
    );
    const first = makeRunner({ dir: path.join(work, "racer-a"), installed, env, project: "race" });
    // Each stack created once, its file committed, as the recipe says.
    for (const r of [...runners, first]) {
      const created = await runJob(r, "Create the stack");
      expect(created.code, created.output).toBe(0);
    }
    racers = [first, makeRunner({ dir: path.join(work, "racer-b"), installed, env, cloneOf: first })];
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await emu?.close();
    await team?.stop();
  });

  it(
    "8 runners update their own stacks while 2 run the merge job on one at the same moment: each run succeeds or says why it changed nothing, and the service holds exactly the stacks' clusters",
    async () => {
      const round = await Promise.all([...runners.map((r) => mergeUp(r)), ...racers.map((r) => runMergeCommand(r))]);
      const own = round.slice(0, RUNNERS);
      const raced = round.slice(RUNNERS);
      for (const run of own) expect(run.code, run.output).toBe(0);
      for (const run of raced) {
        expect([0, 3, 4], run.output).toContain(run.code);
        if (run.code === 3) expect(run.output).toContain("an update may be running; nothing was changed");
        if (run.code === 4) expect(run.output).toContain(`${LOST_RACE} (`);
        // The CLI's own refusal is in the output too; the command's verdict never rests on its wording.
        if (run.code === 4 && !run.output.includes("could not list bucket")) expect(run.output).toMatch(LOCKED);
      }
      for (const run of round) expectNoRateLimitError(run);
      // Both racers may lose (each sees the other's lock): the pipeline runs the job again.
      if (raced.every((r) => r.code !== 0)) {
        const again = await runMergeCommand(racers[0]);
        expect(again.code, again.output).toBe(0);
      }

      // Never two updates of the raced stack at once: each update it records ends before the next starts.
      const updates = stackHistory(racers[0]).filter((u) => u.kind === "update");
      expect(updates.length).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < updates.length; i++) expect(updates[i].start).toBeGreaterThanOrEqual(updates[i - 1].end);

      // No orphan, no duplicate: the service's clusters are exactly those the stacks record.
      const recorded: string[] = [];
      for (const r of [...runners, racers[0]]) {
        const { ids, pending } = await stackClusters(r);
        expect(pending).toEqual([]);
        expect(ids).toHaveLength(CLUSTERS);
        const onService = await clustersOf(r.project);
        expect(onService.map((c) => c.id).sort()).toEqual([...ids].sort());
        expect(onService.every((c) => c.status === "running")).toBe(true);
        recorded.push(...ids);
      }
      expect((await emu.clusters()).map((c) => c.id).sort()).toEqual(recorded.sort());
      expect(lockKeys(backend)).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "a runner killed during `pulumi up` leaves its lock; the merge job removes it and finishes the work, with no duplicate",
    async () => {
      const [runner] = runners;
      const before = (await clustersOf(runner.project)).map((c) => c.id);
      // Another commit: 3 more clusters, slow to provision, so the kill lands while creating.
      const commit = { CLUSTERS: String(CLUSTERS + 3) };
      await emu.control.setTimings({ provisionSeconds: 8 });
      try {
        let pid = 0;
        const killed = mergeUp(runner, { extraEnv: commit, onSpawn: (p) => (pid = p) });
        await eventually(async () => (await clustersOf(runner.project)).length > CLUSTERS, {
          timeoutMs: 120_000,
          what: "the killed job's first POST of a new cluster",
        });
        killTree(pid);
        expect((await killed).code).not.toBe(0);
        const [lock] = lockKeys(backend);
        expect(lock).toContain(`/${runner.project}/prod/`);
        const taken = Date.parse(JSON.parse(backend.read(lock) ?? "{}").timestamp);
        // With no time left in the job timeout, the lock is a killed job's once it is older than 0 s.
        await eventually(() => Date.now() - taken > 1_500, { timeoutMs: 10_000, what: "the lock to age" });

        const merge = await runJob(runner, "Merge", { extraEnv: { ...commit, JOB_TIMEOUT_MINUTES: "0" } });
        expect(merge.code, merge.output).toBe(0);
        expect(merge.output).toContain("removing the lock of a killed job: postgres:");
        expectNoRateLimitError(merge);
        expect(lockKeys(backend)).toEqual([]);
        const { ids, pending } = await stackClusters(runner);
        expect(pending).toEqual([]);
        expect(ids).toHaveLength(CLUSTERS + 3);
        expect(ids).toEqual(expect.arrayContaining(before));
        const onService = await clustersOf(runner.project);
        expect(onService.map((c) => c.id).sort()).toEqual([...ids].sort());
      } finally {
        await emu.control.setTimings({ provisionSeconds: LIFECYCLE_TIMINGS.provisionSeconds });
      }
    },
    STEP_TIMEOUT,
  );
});
