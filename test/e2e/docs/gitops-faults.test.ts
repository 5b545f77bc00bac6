/**
 * docs/gitops.md's fault matrix: runners (separate processes, HOMEs and working copies) running
 * the merge job's command (`cms-gitops merge`) on one PostgreSQL backend and one service token,
 * each deploying a commit that adds a cluster to its stack, with one fault injected at the moment
 * that hurts most: after the service accepted the creates and before the CLI recorded them. Then
 * the job is run again as the recipe says (exit 1 or 4: again; exit 3: again once the job timeout
 * has passed, here a job timeout of 0), until it deploys. After each: every failed run said what happened and what next; the service holds
 * exactly the clusters the programs declare, each in exactly one stack (0 orphans, 0 duplicates, 0
 * taken from another stack); no lock and no pending operation is left.
 *
 * Faults: the service answering 503, then resetting connections, for a while; the token revoked,
 * and its `write` permission removed, then restored; the database killed (kill -9 of the
 * postmaster) until the creates are done, killed for longer than the CLI waits for it, and still
 * down when the next jobs start; `cms-gitops merge` killed (SIGKILL of its process tree) while its
 * `cms-recover` imports the stack, and half-way through its lock clean-up; the jobs killed during a
 * scale in place, and the next ones during the destroy of a cluster the commit removed; a restore
 * from `pg_dump` that loses the record of an auto-named and a named cluster (the job stops, exit 2,
 * naming `cms-recover --adopt ID`, which a person runs). Each fault's runs and time are printed
 * (`fault matrix:` lines) for docs/gitops.md's table, and written to FAULT_REPORT for
 * bench/faults.mjs (which runs this file on 8 runners).
 *
 * CI runs every row in one file's time by sharing what the rows can share: faults that hit
 * different moments of one round share its commit (the database still down when the next jobs
 * start, after the jobs it outlasted; the destroy killed in the jobs after those killed during the
 * scale), faults on different stacks run in the same round (a recovery killed on one runner, a
 * lock clean-up on another), and what the service does after a fault has landed is not waited out
 * (`skipAhead`). The one row CI leaves out, the restore that loses only auto-named clusters' record
 * (`FAULT_MATRIX=full`, which bench/faults.mjs sets), is the auto-named half of the restore CI runs.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  descendants,
  eventually,
  killTree,
  LIFECYCLE_TIMINGS,
  type LifecycleEmulator,
  lifecycleSkipped,
  startLifecycleEmulator,
} from "../lifecycle/harness.mjs";
import { type JobResult, makeRunner, type Runner, runBash, runJob, runMergeCommand, stackClusters } from "../../support/gitops-runners.mjs";
import { startTeam, type Team } from "../../support/gitops-team";
import { lockKeys, type StateBackend } from "../../support/state-backends";
import { postgresTarget } from "../../../src/gitops/locks";

const STEP_TIMEOUT = 10 * 60_000;
/** Runners in CI; bench/faults.mjs runs the issue's 8 (FAULT_RUNNERS). */
const RUNNERS = Number(process.env.FAULT_RUNNERS ?? 3);
const TOKEN = "tok-faults";
/**
 * The restore of auto-named clusters alone too, as bench/faults.mjs runs the file
 * (`FAULT_MATRIX=full`); in CI the restore of an auto-named and a named cluster covers it.
 */
const FULL = process.env.FAULT_MATRIX === "full";
/**
 * Slow enough that a fault lands between a create's POST and its checkpoint (and a kill during a
 * scale or a destroy); once it has landed, the rest is skipped (`emu.skipAhead`).
 */
const PROVISION_SECONDS = 6;

describe.skipIf(lifecycleSkipped())("docs/gitops.md's fault matrix: runners on one PostgreSQL backend and one token", () => {
  let emu: LifecycleEmulator;
  let backend: StateBackend;
  let team: Team;
  let work: string;
  let runners: Runner[] = [];
  /** How many clusters each runner's deployed commit declares. */
  let declared = 1;
  const matrix: string[] = [];
  /** What the failed runs said last (owners, ages and keys elided), for docs/gitops.md. */
  const said = new Set<string>();
  /** For bench/faults.mjs (FAULT_REPORT: a file to write them to, as JSON). */
  const rows: { fault: string; runs: number; seconds: number }[] = [];

  /** The runners' one token, with these permissions (a token of the same secret revoked first, if any). */
  async function grant(permissions: ("read" | "write")[]) {
    await emu.control.revokeToken(TOKEN).catch(() => undefined);
    await emu.control.addToken({ token: TOKEN, permissions, scope: "*", plan: "pro" });
  }

  /** `query` on the backend's database, with psql's variables `vars` (quoted by psql as `:'name'`). */
  function sql(query: string, vars: Record<string, string>): string {
    return execFileSync(
      "psql",
      [backend.url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`])],
      { input: query, encoding: "utf8" },
    );
  }

  /** The faults not spent yet (the control API's `GET /_emulator/faults`). */
  async function faults(): Promise<unknown[]> {
    return (await (emu.control as unknown as { faults(): Promise<unknown[]> }).faults()) ?? [];
  }

  /** The clusters of `project` on the service, by the names its program gives them. */
  async function clustersOf(project: string) {
    return (await emu.clusters()).filter((c) => c.name.startsWith(`${project}-`));
  }

  /** The clusters (indices) the programs give an explicit name, from the commit that added them on. */
  const named: number[] = [];

  /** How many workers each cluster of the deployed commit has. */
  let workers = 1;

  /** The commit every runner deploys now. */
  function commitEnv() {
    return { CLUSTERS: String(declared), NAMED: named.join(","), WORKERS: String(workers) };
  }

  /** The commit every runner deploys next: one more cluster, with an explicit name when `withName`. */
  function nextCommit({ withName = false } = {}) {
    declared += 1;
    if (withName) named.push(declared - 1);
    return commitEnv();
  }

  /**
   * One round with a fault: every runner's job deploys the next commit, and `inject` runs once
   * `accepted` holds (by default: every runner's new cluster accepted by the service, none
   * recorded yet); then what the service still has to do is skipped. `again`, if given, runs the
   * jobs once more while the fault lasts, checks and returns those runs; `repair` undoes the fault
   * (what a person does: a token given back). `first` checks each job's first run; then the
   * recipe's re-runs until every job deploys, and the service is checked.
   */
  async function roundWithFault(
    fault: string,
    {
      inject,
      accepted = async () => (await emu.clusters()).length >= runners.length * declared,
      first = () => undefined,
      again: runAgain,
      repair = async () => undefined,
      why = /$^/,
    }: {
      inject: () => Promise<void>;
      accepted?: () => Promise<boolean>;
      first?: (run: JobResult) => void;
      again?: (commit: NodeJS.ProcessEnv) => Promise<JobResult[]>;
      repair?: () => Promise<void>;
      why?: RegExp;
    },
  ) {
    const since = Date.now();
    const commit = nextCommit();
    await emu.control.setTimings({ provisionSeconds: PROVISION_SECONDS });
    let round: JobResult[];
    try {
      const jobs = Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      await eventually(accepted, { timeoutMs: 180_000, what: "the creates accepted by the service" });
      await inject();
      emu.skipAhead(PROVISION_SECONDS * 1000);
      round = await jobs;
    } finally {
      await emu.control.setTimings({ provisionSeconds: LIFECYCLE_TIMINGS.provisionSeconds });
    }
    let again: JobResult[] | undefined;
    try {
      again = await runAgain?.(commit);
    } finally {
      await repair();
    }
    for (const run of round) first(run);
    const latest = again ?? round;
    const runs = await Promise.all(latest.map((run, i) => rerunUntilDeployed(runners[i], run, commit, why, again ? 2 : 1)));
    await expectConverged(fault, runs, since);
  }

  /**
   * What a failed run must say: the command's last line names what happened, and the lines above
   * (the CLI's, the provider's) why; and what the pipeline does next is the exit code's row of
   * docs/gitops.md.
   */
  function expectExplained(run: JobResult, why: RegExp) {
    expect(run.output, run.output).toMatch(why);
    const last = run.output.trim().split("\n").pop() ?? "";
    expect(last, run.output).toMatch(/^cms-gitops: /);
    if (run.code === 1) expect(last).toMatch(/run the job again/);
    if (run.code === 3) expect(last).toMatch(/nothing was changed\. Run the job again later/);
  }

  /** A failed run the pipeline runs again (exit 1, 3 or 4), explained (`why`), and noted for docs/gitops.md. */
  function expectFailedRun(run: JobResult, why: RegExp) {
    expect([1, 3, 4], run.output).toContain(run.code);
    expectExplained(run, why);
    const error = run.output.split("\n").find((l) => /error:/.test(l));
    said.add(`exit ${run.code}: ${error ? `${elide(error)} / ` : ""}${elide(run.output.trim().split("\n").pop())}`);
  }

  /**
   * The recipe's re-runs after a failed job (`last`, the job's `runs`-th run), until it deploys (at
   * most 3 runs more than the failures before `last`): exit 1 or 4, the pipeline runs it again;
   * exit 3, again once the job timeout has passed (the lock is then older than it: a job timeout
   * of 0 here). Returns how many runs it took in all.
   */
  async function rerunUntilDeployed(runner: Runner, last: JobResult, commit: NodeJS.ProcessEnv, why: RegExp, runsBefore = 1) {
    const maxRuns = runsBefore + 3;
    let run = last;
    let runs = runsBefore;
    while (run.code !== 0) {
      expectFailedRun(run, why);
      expect(runs, run.output).toBeLessThan(maxRuns);
      const later = run.code === 3 ? { JOB_TIMEOUT_MINUTES: "0" } : {};
      run = await runMergeCommand(runner, { extraEnv: { ...commit, ...later } });
      runs += 1;
    }
    return runs;
  }

  /**
   * The service holds exactly the clusters the programs declare, each in exactly one stack. Records
   * the fault's row: the runs it took, and the seconds from the round's start (`since`) to now.
   */
  async function expectConverged(fault: string, runs: number[], since: number) {
    const seconds = (Date.now() - since) / 1000;
    const recorded: string[] = [];
    const stacks = await Promise.all(runners.map((r) => stackClusters(r)));
    for (const [i, r] of runners.entries()) {
      const { ids, pending } = stacks[i];
      expect(pending).toEqual([]);
      expect(ids).toHaveLength(declared);
      const onService = await clustersOf(r.project);
      expect(onService.map((c) => c.id).sort()).toEqual([...ids].sort());
      expect(onService.every((c) => c.status === "running")).toBe(true);
      recorded.push(...ids);
    }
    expect(new Set(recorded).size).toBe(recorded.length);
    expect((await emu.clusters()).map((c) => c.id).sort()).toEqual(recorded.sort());
    expect(lockKeys(backend)).toEqual([]);
    rows.push({ fault, runs: Math.max(...runs), seconds });
    matrix.push(
      `${fault}: converged after ${Math.max(...runs)} run(s) of the job (runs per runner: ${runs.join(", ")}), ${seconds.toFixed(1)} s`,
    );
  }

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    await grant(["read", "write"]);
    team = await startTeam("faults", emu.url, TOKEN);
    ({ work, backend } = team);
    const { installed, env } = team;
    runners = Array.from({ length: RUNNERS }, (_, i) =>
      makeRunner({ dir: path.join(work, `runner-${i}`), installed, env, project: `fault-${i}` }),
    );
    // The first job makes the backend's table; the others' stacks, once it is there, at once.
    const [firstRunner, ...others] = runners;
    for (const created of [
      await runJob(firstRunner, "Create the stack"),
      ...(await Promise.all(others.map((r) => runJob(r, "Create the stack")))),
    ]) {
      expect(created.code, created.output).toBe(0);
    }
    const first = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: { CLUSTERS: String(declared) } })));
    for (const run of first) expect(run.code, run.output).toBe(0);
  }, STEP_TIMEOUT);

  afterAll(async () => {
    for (const line of matrix) console.log(`fault matrix: ${line}`);
    for (const line of said) console.log(`a failed job said: ${line}`);
    if (process.env.FAULT_REPORT) fs.writeFileSync(process.env.FAULT_REPORT, JSON.stringify({ runners: RUNNERS, rows, notes: matrix }));
    await emu?.close();
    await team?.stop();
  });

  it(
    "the same round without a fault: every job deploys in its first run",
    async () => {
      await roundWithFault("none", { inject: async () => undefined, first: (run) => expect(run.code, run.output).toBe(0) });
    },
    STEP_TIMEOUT,
  );

  it(
    "(a) the service answers 503, then drops the connections, for a while after it accepted the creates: the jobs wait it out",
    async () => {
      let away = 0;
      await roundWithFault("(a) service 503s, then reset connections, after the creates were accepted", {
        inject: async () => {
          const from = Date.now();
          // 503s, then connections reset with no answer (each fault answers until it is spent; a
          // reset is waited out longer than a 503, so fewer of them).
          await emu.control.injectFault({ kind: "status", status: 503, path: "/v1", count: 8 * runners.length });
          await emu.control.injectFault({ kind: "drop", path: "/v1", count: runners.length });
          // Unavailable until both are spent, however long that takes the runners.
          await eventually(async () => (await faults()).length === 0, {
            timeoutMs: 180_000,
            what: "the service's 503s served",
          });
          await emu.control.clearFaults();
          away = Date.now() - from;
        },
        first: (run) => expect(run.code, run.output).toBe(0),
      });
      matrix.push(`(a) the service answered 503, then reset the connections, for ${Math.round(away / 1000)} s`);
    },
    STEP_TIMEOUT,
  );

  it(
    "(c) the token revoked after the service accepted the creates, then restored: the jobs fail saying so, the next ones deploy",
    async () => {
      await roundWithFault("(c) token revoked after the creates were accepted, then restored", {
        inject: () => emu.control.revokeToken(TOKEN),
        first: (run) => {
          expect(run.code, run.output).toBe(1);
          expect(run.output).toMatch(/cms:token|CMS_TOKEN/);
        },
        repair: () => grant(["read", "write"]),
        why: /token/i,
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "(c) the token's write permission removed once the first create was accepted, then restored: the refused jobs say so, the next ones deploy",
    async () => {
      const before = (await emu.clusters()).length;
      await roundWithFault("(c) write permission removed during the creates, then restored", {
        accepted: async () => (await emu.clusters()).length > before,
        inject: () => grant(["read"]),
        repair: () => grant(["read", "write"]),
        why: /permission|write/i,
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "(f) the database killed (kill -9 of the postmaster) after the creates were accepted, started again once they are done: every job deploys in its first run",
    async () => {
      await roundWithFault("(f) database killed until the creates were done", {
        inject: async () => {
          await backend.halt?.();
          try {
            // Down until the service finished every create: each job's checkpoint finds no database.
            await eventually(async () => (await emu.clusters()).every((c) => c.status === "running"), {
              timeoutMs: 120_000,
              what: "the creates done on the service",
            });
          } finally {
            await backend.resume?.();
          }
        },
        first: (run) => expect(run.code, run.output).toBe(0),
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "(d) the database killed for longer than the CLI waits for it: the jobs fail saying so and leave their locks; (g) still down when the next jobs start: they fail at once, changing nothing; the jobs after the job timeout deploy",
    async () => {
      let halted = 0;
      let ended = 0;
      await roundWithFault("(d) database killed for longer than the CLI waits, (g) still down when the next jobs started", {
        inject: async () => {
          await backend.halt?.();
          halted = Date.now();
        },
        first: (run) => {
          ended = Math.max(ended, run.ended);
          expect(run.code, run.output).toBe(1);
          expect(run.output).toMatch(/writing the new snapshot file/);
          expectFailedRun(run, /snapshot|database/i);
        },
        // Once every job has given up, the next ones start while it is still down.
        again: async (commit) => {
          const before = (await emu.clusters()).map((c) => c.id).sort();
          const downAtStart = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
          for (const run of downAtStart) {
            expect(run.code, run.output).toBe(1);
            expectFailedRun(run, /psql|connection|server/i);
          }
          expect((await emu.clusters()).map((c) => c.id).sort()).toEqual(before);
          matrix.push("(g) the database down when the jobs started: every job failed at once (exit 1), nothing changed on the service");
          return downAtStart;
        },
        repair: async () => backend.resume?.(),
        // The database down at the start (checked above), then, once it is back, the failed jobs' locks (exit 3).
        why: /psql|connection to server|locked/i,
      });
      matrix.push(`(d) the CLI gave up ${Math.round((ended - halted) / 1000)} s after the database went away`);
    },
    STEP_TIMEOUT,
  );

  /**
   * `runner`'s merge job deploying `commit` killed while it creates (a pending create and its lock
   * left), then the next job killed while its `cms-recover` imports the stack: the job after the
   * job timeout deploys. Three runs.
   */
  async function killRecovery(runner: Runner, commit: NodeJS.ProcessEnv) {
    await emu.control.setTimings({ provisionSeconds: PROVISION_SECONDS });
    try {
      let pid = 0;
      const killed = runMergeCommand(runner, { extraEnv: commit, onSpawn: (p) => (pid = p) });
      await eventually(async () => (await clustersOf(runner.project)).length >= declared, {
        timeoutMs: 120_000,
        what: "the new cluster's POST",
      });
      expect(pid).toBeGreaterThan(0);
      killTree(pid);
      expect((await killed).code).not.toBe(0);
    } finally {
      await emu.control.setTimings({ provisionSeconds: LIFECYCLE_TIMINGS.provisionSeconds });
    }
    // The next job, killed in the middle of its recovery: once `pulumi stack import` runs.
    let pid = 0;
    const job = runMergeCommand(runner, { extraEnv: { ...commit, JOB_TIMEOUT_MINUTES: "0" }, onSpawn: (p) => (pid = p) });
    await eventually(() => pid > 0 && descendants(pid).some((p) => commandLine(p).includes("stack\0import")), {
      timeoutMs: 120_000,
      intervalMs: 5,
      what: "cms-recover's pulumi stack import",
    });
    // The job's whole tree, found while it lives: its plugins are in process groups of their own,
    // so a kill of its group first would leave them running, out of the tree's reach.
    killTree(pid);
    expect((await job).code).not.toBe(0);
    const again = await runMergeCommand(runner, { extraEnv: { ...commit, JOB_TIMEOUT_MINUTES: "0" } });
    expect(again.code, again.output).toBe(0);
    return 3;
  }

  /**
   * `runner`'s merge job killed half-way through its lock clean-up: of two killed jobs' locks, one
   * removed, the other not yet. The next job removes the rest and deploys `commit`. Two runs.
   */
  async function killCleanup(runner: Runner, commit: NodeJS.ProcessEnv) {
    // Two locks of killed jobs, as the CLI writes them (a row each, the lock's JSON in base64).
    const { prefix } = postgresTarget(backend.url);
    const dir = `${prefix}.pulumi/locks/organization/${runner.project}/prod/`;
    const keys = ["a", "b"].map((k) => `${dir}${randomUUID()}-${k}.json`);
    for (const key of keys) {
      const lock = JSON.stringify({ pid: 4242, username: "ci", hostname: "killed-runner", timestamp: new Date().toISOString() });
      sql("INSERT INTO pulumi_state (key, data, updated_at) VALUES (:'key', json_build_object('data', :'data'), now())", {
        key,
        data: Buffer.from(lock).toString("base64"),
      });
    }
    // Each row held by a session of ours, so the job's DELETE of it waits until we let it go.
    const holds = new Map(await Promise.all(keys.map(async (key) => [key, await holdRow(backend.url, key)] as const)));
    // The job's DELETEs of these rows waiting (other runners' jobs may run meanwhile).
    const waiting =
      "FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM%' AND (strpos(query, :'a') > 0 OR strpos(query, :'b') > 0)";
    const waitingOn = () => sql(`SELECT query ${waiting}`, { a: keys[0], b: keys[1] });
    let pid = 0;
    const job = runMergeCommand(runner, { extraEnv: { ...commit, JOB_TIMEOUT_MINUTES: "0" }, onSpawn: (p) => (pid = p) });
    try {
      const first = (await eventually(() => keys.find((k) => waitingOn().includes(k)), { what: "the job's first DELETE" })) as string;
      await holds.get(first)?.release();
      const second = keys.find((k) => k !== first) as string;
      await eventually(() => waitingOn().includes(second) && !lockKeys(backend).some((k) => first.endsWith(k)), {
        what: "the first lock removed, the job's second DELETE waiting",
      });
      // The job's whole tree, found while it lives: its plugins are in process groups of their own,
      // so a kill of its group first would leave them running, out of the tree's reach.
      killTree(pid);
      expect((await job).code).not.toBe(0);
      // The server ends the killed job's statement as it would on finding its client gone.
      sql(`SELECT pg_terminate_backend(pid) ${waiting}`, { a: keys[0], b: keys[1] });
    } finally {
      for (const hold of holds.values()) await hold.release();
    }
    expect(lockKeys(backend).filter((k) => keys.some((key) => key.endsWith(k)))).toHaveLength(1);

    const again = await runMergeCommand(runner, { extraEnv: { ...commit, JOB_TIMEOUT_MINUTES: "0" } });
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/removing the lock of a killed job: .*-[ab]\.json \(ci@killed-runner \(pid 4242\)/);
    return 2;
  }

  it(
    "(b) the merge job killed (SIGKILL of its process tree) while its cms-recover imports the stack on one runner, and half-way through its lock clean-up on another, while the others deploy: the jobs after the job timeout deploy",
    async () => {
      const since = Date.now();
      const commit = nextCommit();
      const [recovering, cleaning, ...others] = runners;
      // Different stacks: the faults of one round on different runners, as a team meets them.
      const runs = await Promise.all([
        killRecovery(recovering, commit),
        killCleanup(cleaning, commit),
        ...others.map(async (r) => {
          // The other runners deploy the same commit, untouched.
          const run = await runMergeCommand(r, { extraEnv: commit });
          expect(run.code, run.output).toBe(0);
          return 1;
        }),
      ]);
      await expectConverged(
        "(b) merge job killed during cms-recover's stack import on one runner, half-way through its lock clean-up on another",
        runs,
        since,
      );
    },
    STEP_TIMEOUT,
  );

  /**
   * Every runner's merge job deploys `commit` and is killed (SIGKILL of its process tree) once
   * `reached(runner)` holds: each leaves its lock, which the next job takes for a killed job's
   * once it is older than the job timeout. Returns the killed runs.
   */
  async function killJobsWhen(commit: NodeJS.ProcessEnv, reached: (r: Runner) => Promise<boolean>, what: string) {
    return Promise.all(
      runners.map(async (r) => {
        let pid = 0;
        let ended: JobResult | undefined;
        const job = runMergeCommand(r, { extraEnv: commit, onSpawn: (p) => (pid = p) }).then((run) => (ended = run));
        await eventually(
          async () => {
            // A job that ended before the moment came failed the round: say why.
            if (ended) throw new Error(`${r.project}: the job ended (exit ${ended.code}) before ${what}:\n${ended.output}`);
            return reached(r);
          },
          { timeoutMs: 120_000, intervalMs: 20, what: `${r.project}: ${what}` },
        );
        // The job's whole tree, found while it lives: its plugins are in process groups of their own,
        // so a kill of its group first would leave them running, out of the tree's reach.
        killTree(pid);
        const killed = await job;
        expect(killed.code, killed.output).not.toBe(0);
        return killed;
      }),
    );
  }

  it(
    "(h) the merge jobs killed during a scale in place (the PATCHes accepted), the next ones during the destroy of a cluster the commit removed (the DELETEs accepted): the jobs after the job timeout deploy",
    async () => {
      const since = Date.now();
      // One commit for both moments: every cluster scaled, the last one removed (the engine
      // deletes once the updates are done).
      workers += 1;
      declared -= 1;
      const commit = commitEnv();
      const later = { ...commit, JOB_TIMEOUT_MINUTES: "0" };
      const removed = new Map<Runner, string>();
      for (const r of runners) {
        const { ids } = await stackClusters(r);
        const gone = (await clustersOf(r.project)).find((c) => c.name.startsWith(`${r.project}-${declared}-`));
        expect(gone && ids.includes(gone.id)).toBe(true);
        removed.set(r, gone?.id ?? "");
      }
      await emu.control.setTimings({ scaleSeconds: PROVISION_SECONDS, deleteSeconds: PROVISION_SECONDS });
      try {
        await killJobsWhen(commit, async (r) => (await clustersOf(r.project)).some((c) => c.status === "scaling"), "a PATCH accepted");
        // What the service still does for the killed jobs is not waited out.
        emu.skipAhead(PROVISION_SECONDS * 1000);
        const killed = await killJobsWhen(
          later,
          async (r) => (await emu.clusters()).find((c) => c.id === removed.get(r))?.status === "deleting",
          "the DELETE accepted",
        );
        for (const run of killed) expect(run.output).toMatch(/removing the lock of a killed job/);
        emu.skipAhead(PROVISION_SECONDS * 1000);
      } finally {
        await emu.control.setTimings({ scaleSeconds: LIFECYCLE_TIMINGS.scaleSeconds, deleteSeconds: LIFECYCLE_TIMINGS.deleteSeconds });
      }
      // The job after the job timeout deploys: the third run.
      const runs = await Promise.all(
        runners.map(async (r) => {
          const run = await runMergeCommand(r, { extraEnv: later });
          expect(run.code, run.output).toBe(0);
          expect(run.output).toMatch(/removing the lock of a killed job/);
          return 3;
        }),
      );
      await expectConverged(
        "(h) merge jobs killed during a scale in place, the next ones during the destroy of a removed cluster",
        runs,
        since,
      );
      for (const r of runners) expect((await clustersOf(r.project)).map((c) => c.workers)).toEqual(Array(declared).fill(workers));
    },
    STEP_TIMEOUT,
  );

  it.runIf(FULL)(
    "(f) a restore from pg_dump that loses the record of the clusters the last jobs created: the next jobs take them over by their auto-names",
    async () => {
      const dump = path.join(work, "state.sql");
      execFileSync("pg_dump", ["--clean", "--if-exists", "--table=pulumi_state", "--file", dump, backend.url]);
      const commit = nextCommit();
      const deployed = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      for (const run of deployed) expect(run.code, run.output).toBe(0);
      execFileSync("psql", [backend.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump]);
      const restored = Date.now();
      for (const r of runners) expect((await stackClusters(r)).ids).toHaveLength(declared - 1);

      const after = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      for (const run of after) {
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain("taken over instead of creating another");
      }
      await expectConverged(
        "(f) restore losing the record of auto-named clusters",
        after.map(() => 1),
        restored,
      );
    },
    STEP_TIMEOUT,
  );

  it(
    "(f) a restore from pg_dump that loses the record of an auto-named and a named cluster: the jobs take the first over, stop with the one command for the second, a person runs it, the next jobs deploy",
    async () => {
      const dump = path.join(work, "state-named.sql");
      execFileSync("pg_dump", ["--clean", "--if-exists", "--table=pulumi_state", "--file", dump, backend.url]);
      nextCommit();
      const commit = nextCommit({ withName: true });
      const deployed = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      for (const run of deployed) expect(run.code, run.output).toBe(0);
      execFileSync("psql", [backend.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump]);
      const restored = Date.now();
      const lost = new Map<Runner, string>();
      for (const r of runners) {
        expect((await stackClusters(r)).ids).toHaveLength(declared - 2);
        const [cluster] = (await clustersOf(r.project)).filter((c) => c.name === `${r.project}-named-${declared - 1}`);
        lost.set(r, cluster.id);
      }

      // The jobs stop for a person at the named cluster: nothing created, and the one command
      // named. (The engine starts no create once one failed, so the auto-named one may be taken
      // over now or by the job after.)
      const stopped = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      const commands = stopped.map((run, i) => {
        expect(run.code, run.output).toBe(2);
        const last = run.output.trim().split("\n").pop() ?? "";
        said.add(`exit 2: ${elide(last)}`);
        expect(last, run.output).toMatch(/^cms-gitops: .*a person decides/i);
        const command = /node_modules\/\.bin\/cms-recover --stack prod --adopt [\w-]+/.exec(last)?.[0];
        expect(command, run.output).toBe(`node_modules/.bin/cms-recover --stack prod --adopt ${lost.get(runners[i])}`);
        return command as string;
      });
      expect((await emu.clusters()).length).toBe(runners.length * declared);

      // Another stack's cluster is refused, changing nothing.
      const theirs = (await stackClusters(runners[1])).ids[0];
      const refused = await runBash(runners[0], `node_modules/.bin/cms-recover --stack prod --adopt ${theirs}`, { extraEnv: commit });
      expect(refused.code, refused.output).toBe(2);
      expect(refused.output).toMatch(/recorded by stack .*fault-1.*Nothing was changed/);

      // What a person does: the command the job named, once it is known to be this stack's, in
      // the working copy of the commit the job deployed (CLUSTERS, NAMED).
      const adopted = await Promise.all(runners.map((r, i) => runBash(r, commands[i], { extraEnv: commit })));
      for (const run of adopted) {
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain("recording it (named with --adopt)");
      }
      const again = await runBash(runners[0], commands[0], { extraEnv: commit });
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain("is recorded by this stack already");
      const state = execFileSync("pulumi", ["stack", "export", "--stack", "prod"], {
        cwd: runners[0].repo,
        env: runners[0].env,
        encoding: "utf8",
      });
      const record = (JSON.parse(state).deployment.resources as { id?: string; outputs?: { kubeconfig?: unknown } }[]).find(
        (res) => res.id === lost.get(runners[0]),
      );
      expect(record?.outputs?.kubeconfig).toHaveProperty("ciphertext");

      const after = await Promise.all(runners.map((r) => runMergeCommand(r, { extraEnv: commit })));
      after.forEach((run, i) => {
        expect(run.code, run.output).toBe(0);
        expect(stopped[i].output + run.output).toContain("taken over instead of creating another");
      });
      await expectConverged(
        "(f) restore losing the record of an auto-named and a named cluster (a person ran the command the job named)",
        after.map(() => 2),
        restored,
      );
    },
    STEP_TIMEOUT,
  );
});

/** Holds the row `key` of the backend's table (`SELECT … FOR UPDATE` in an open transaction) until `release()`. */
async function holdRow(backendUrl: string, key: string): Promise<{ release(): Promise<void> }> {
  const session = spawn("psql", [backendUrl, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-v", `key=${key}`], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const closed = new Promise<void>((resolve) => session.once("close", () => resolve()));
  let out = "";
  session.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  session.stdin.write("BEGIN;\nSELECT key FROM pulumi_state WHERE key = :'key' FOR UPDATE;\n\\echo held\n");
  await eventually(() => out.includes("held"), { what: `the row ${key} held` });
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      session.stdin.end("ROLLBACK;\n");
      await closed;
    },
  };
}

/** A line of a job's output without what differs between runs: owners, ages, keys, ids, names. */
function elide(line = ""): string {
  return line.trim().replace(/pid \d+|\d+s ago|[\w.-]+@[\w.-]+|postgres:\/\/\S+|cls_\w+|fault-\d+-\d+-\w+/g, "…");
}

/** The command line of process `pid`, its arguments separated by NUL ("" once it is gone). */
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}
