/**
 * docs/gitops.md's fault matrix: 8 runners (separate processes, HOMEs and working copies) running
 * the merge job's command (`cms-gitops merge`) on one PostgreSQL backend and one Community token
 * (the runners share its rate limit, so the service refuses some of their calls: no run may fail
 * on it), each deploying a commit of its own stack, with a fault injected at the moment that hurts
 * most: after the service accepted the creates and before the CLI recorded them. Then the job is
 * run again as the recipe says (exit 1 or 4: again; exit 3: again once the job timeout has passed,
 * here a job timeout of 0), until it deploys. After each round: every failed run said what
 * happened and what next; the service holds exactly the clusters the programs declare, each in
 * exactly one stack (0 orphans, 0 duplicates, 0 taken from another stack); no lock and no pending
 * operation is left.
 *
 * Faults: the service answering 503, then resetting connections, while the 8 runners create; the
 * token revoked, and its `write` permission removed, then restored; the database killed (kill -9
 * of the postmaster) until the creates are done, killed for longer than the CLI waits for it, and
 * still down when the next jobs start; `cms-gitops merge` killed (SIGKILL of its process tree)
 * while its `cms-recover` imports the stack, and half-way through its lock clean-up; jobs killed
 * during a scale in place, and others during the destroy of a cluster the commit removed; two
 * runners running the merge job on one stack at the same moment; a restore from `pg_dump` that
 * loses the record of an auto-named and a named cluster (the job stops, exit 2, naming
 * `cms-recover --adopt ID`, which a person runs). Each fault's runs and time are printed (`fault
 * matrix:` lines) for docs/gitops.md's table, and written to FAULT_REPORT for bench/faults.mjs.
 *
 * A fault of the service, the database or the shared token hits every job running: the outage and
 * the database killed until the creates are done hit all 8 runners; the revoked token and the
 * database gone for longer than the CLI waits, runners 0-3; the removed `write` permission, runners
 * 4-7. A fault of one job hits that runner alone, so one round holds them all, on different
 * stacks as a team meets them: a recovery killed (runner 0), a lock clean-up killed (1), jobs
 * killed during a scale (2-4) and during a destroy (5-7), and the race (a stack of its own). The
 * restore loses the records of runners 0 and 1, the two whose commits changed since the dump. What
 * the service does after a fault has landed is not waited out (`skipAhead`). The rows CI leaves
 * out (`FAULT_MATRIX=full`, which bench/faults.mjs sets): the same round without a fault, the
 * benchmark's baseline, and the restore that loses only auto-named clusters' records, the
 * auto-named half of the restore CI runs.
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
import {
  type JobResult,
  LOCKED,
  LOST_RACE,
  makeRunner,
  type Runner,
  runBash,
  runJob,
  runMergeCommand,
  stackClusters,
  stackHistory,
} from "../../support/gitops-runners.mjs";
import { startTeam, type Team } from "../../support/gitops-team";
import { lockKeys, type StateBackend } from "../../support/state-backends";
import { postgresTarget } from "../../../src/gitops/locks";

const STEP_TIMEOUT = 10 * 60_000;
const RUNNERS = 8;
const TOKEN = "tok-faults-community";
/** The rows CI leaves out, as bench/faults.mjs runs the file (`FAULT_MATRIX=full`). */
const FULL = process.env.FAULT_MATRIX === "full";
/**
 * A create of a round with a fault: long enough that every runner's create is accepted before any
 * runner's has ended (the Community token's rate limit spreads the runners' POSTs over up to a
 * minute), so the fault lands between each create's POST and its checkpoint; once it has landed,
 * the rest is skipped (`emu.skipAhead`).
 */
const ROUND_PROVISION_SECONDS = 180;
/** A create, a scale or a delete in the round of single jobs' faults: long enough for a kill to land during it. */
const PROVISION_SECONDS = 6;
/**
 * How long a job of the round of single jobs' faults may take to reach its moment: 10 jobs share
 * the Community token's 100 calls a minute, so some wait for the next window, more than once.
 */
const MOMENT_TIMEOUT_MS = 300_000;

/** A stack and the commit its runner deploys: how many clusters, which of them named, their workers. */
interface Stack {
  runner: Runner;
  clusters: number;
  named: number[];
  workers: number;
}

/** The environment that stands for `stack`'s commit (test/support/gitops-runners.mjs's program). */
function commitOf(stack: Stack): NodeJS.ProcessEnv {
  return { CLUSTERS: String(stack.clusters), NAMED: stack.named.join(","), WORKERS: String(stack.workers) };
}

/** `commit` run once the job timeout has passed (a job timeout of 0 here): the locks of killed or failed jobs are stale then. */
function afterTimeout(commit: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...commit, JOB_TIMEOUT_MINUTES: "0" };
}

/** `stack`'s next commit: one more cluster, with an explicit name when `withName`. */
function addCluster(stack: Stack, { withName = false } = {}): NodeJS.ProcessEnv {
  stack.clusters += 1;
  if (withName) stack.named.push(stack.clusters - 1);
  return commitOf(stack);
}

/**
 * No 429 reaches a user: the job's output names none, and says "rate limit" only in the progress
 * line of a Cluster waiting for the token's next window, never in an error.
 */
function expectNoRateLimitError(run: JobResult) {
  expect(run.output, run.output).not.toMatch(/\b429\b/);
  for (const line of run.output.split("\n").filter((l) => /rate limit/i.test(l))) {
    expect(line).toMatch(/^ [ +~-] +pulumi-nodejs:dynamic\/cms:Cluster \S+ \w+ \(\d+s\) rate limited by the service; attempt \d+ in \d/);
  }
}

/** `runner`'s merge command (docs/gitops.md, as written), checked for {@link expectNoRateLimitError}. */
async function merge(runner: Runner, options: Parameters<typeof runMergeCommand>[1] = {}): Promise<JobResult> {
  const run = await runMergeCommand(runner, options);
  expectNoRateLimitError(run);
  return run;
}

describe.skipIf(lifecycleSkipped())("docs/gitops.md's fault matrix: 8 runners on one PostgreSQL backend and one Community token", () => {
  let emu: LifecycleEmulator;
  let backend: StateBackend;
  let team: Team;
  let work: string;
  let runners: Runner[] = [];
  /** Every stack of the backend: one per runner, then the one the two racers share. */
  let stacks: Stack[] = [];
  let racers: Runner[] = [];
  const matrix: string[] = [];
  /** What the failed runs said last (owners, ages and keys elided), for docs/gitops.md. */
  const said = new Set<string>();
  /** For bench/faults.mjs (FAULT_REPORT: a file to write them to, as JSON). */
  const rows: { fault: string; runs: number; seconds: number }[] = [];

  const stackOf = (runner: Runner) => stacks[runners.indexOf(runner)];
  const firstHalf = () => runners.slice(0, RUNNERS / 2);
  const secondHalf = () => runners.slice(RUNNERS / 2);

  /** The runners' one token, with these permissions (a token of the same secret revoked first, if any). */
  async function grant(permissions: ("read" | "write")[]) {
    await emu.control.revokeToken(TOKEN).catch(() => undefined);
    await emu.control.addToken({ token: TOKEN, permissions, scope: "*", plan: "community" });
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

  /** The service's durations of a create, a scale and a delete set to `seconds` while `work` runs. */
  async function withTimings<T>(seconds: number, work: () => Promise<T>): Promise<T> {
    await emu.control.setTimings({ provisionSeconds: seconds, scaleSeconds: seconds, deleteSeconds: seconds });
    try {
      return await work();
    } finally {
      const { provisionSeconds, scaleSeconds, deleteSeconds } = LIFECYCLE_TIMINGS;
      await emu.control.setTimings({ provisionSeconds, scaleSeconds, deleteSeconds });
    }
  }

  /**
   * One round with a fault: the jobs of the runners `on` deploy their stacks' next commits, and
   * `inject` runs once `accepted` holds (by default: each of their new clusters accepted by the
   * service, none recorded yet); then what the service still has to do is skipped. `again`, if
   * given, runs the jobs once more while the fault lasts, checks and returns those runs; `repair`
   * undoes the fault (what a person does: a token given back). `first` checks each job's first
   * run; then the recipe's re-runs until every job deploys, and the service is checked.
   */
  async function roundWithFault(
    fault: string,
    {
      on = runners,
      inject,
      accepted,
      first = () => undefined,
      again: runAgain,
      repair = async () => undefined,
      why = /$^/,
    }: {
      on?: Runner[];
      inject: () => Promise<void>;
      accepted?: () => Promise<boolean>;
      first?: (run: JobResult) => void;
      again?: (commits: NodeJS.ProcessEnv[]) => Promise<JobResult[]>;
      repair?: () => Promise<void>;
      why?: RegExp;
    },
  ) {
    const since = Date.now();
    const commits = on.map((r) => addCluster(stackOf(r)));
    const allAccepted = async () => {
      const counts = await Promise.all(on.map(async (r) => (await clustersOf(r.project)).length));
      return counts.every((n, i) => n >= stackOf(on[i]).clusters);
    };
    const round = await withTimings(ROUND_PROVISION_SECONDS, async () => {
      const jobs = Promise.all(on.map((r, i) => merge(r, { extraEnv: commits[i] })));
      await eventually(accepted ?? allAccepted, { timeoutMs: 180_000, what: "the creates accepted by the service" });
      await inject();
      emu.skipAhead(ROUND_PROVISION_SECONDS * 1000);
      return jobs;
    });
    let again: JobResult[] | undefined;
    try {
      again = await runAgain?.(commits);
    } finally {
      await repair();
    }
    for (const run of round) first(run);
    const latest = again ?? round;
    const runs = await Promise.all(latest.map((run, i) => rerunUntilDeployed(on[i], run, commits[i], why, again ? 2 : 1)));
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
      run = await merge(runner, { extraEnv: run.code === 3 ? afterTimeout(commit) : commit });
      runs += 1;
    }
    return runs;
  }

  /**
   * The service holds exactly the clusters every stack's program declares, each in exactly one
   * stack. Records the fault's row: the most runs a job took, and the seconds from the round's
   * start (`since`) to now.
   */
  async function expectConverged(fault: string, runs: number[], since: number) {
    const seconds = (Date.now() - since) / 1000;
    const recorded: string[] = [];
    const exported = await Promise.all(stacks.map((s) => stackClusters(s.runner)));
    for (const [i, { runner, clusters }] of stacks.entries()) {
      const { ids, pending } = exported[i];
      expect(pending).toEqual([]);
      expect(ids).toHaveLength(clusters);
      const onService = await clustersOf(runner.project);
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
    const racer = makeRunner({ dir: path.join(work, "racer-a"), installed, env, project: "race" });
    // The first job makes the backend's table; the others' stacks, once it is there, at once.
    const [firstRunner, ...others] = [...runners, racer];
    for (const created of [
      await runJob(firstRunner, "Create the stack"),
      ...(await Promise.all(others.map((r) => runJob(r, "Create the stack")))),
    ]) {
      expect(created.code, created.output).toBe(0);
    }
    // The racers' stack file is committed: the second racer is a clone of the first's repository.
    racers = [racer, makeRunner({ dir: path.join(work, "racer-b"), installed, env, cloneOf: racer })];
    stacks = [...runners, racer].map((runner) => ({ runner, clusters: 0, named: [], workers: 1 }));
  }, STEP_TIMEOUT);

  afterAll(async () => {
    for (const line of matrix) console.log(`fault matrix: ${line}`);
    for (const line of said) console.log(`a failed job said: ${line}`);
    if (process.env.FAULT_REPORT) fs.writeFileSync(process.env.FAULT_REPORT, JSON.stringify({ runners: RUNNERS, rows, notes: matrix }));
    await emu?.close();
    await team?.stop();
  });

  it.runIf(FULL)(
    "the same round without a fault: every job deploys in its first run",
    async () => {
      await roundWithFault("none", { inject: async () => undefined, first: (run) => expect(run.code, run.output).toBe(0) });
    },
    STEP_TIMEOUT,
  );

  it(
    "(a) the service answers 503, then drops the connections, for a while after it accepted the 8 runners' creates: the jobs wait it out",
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
    "(c) the token revoked after the service accepted the creates of runners 0-3, then restored: the jobs fail saying so, the next ones deploy",
    async () => {
      await roundWithFault("(c) token revoked after the creates were accepted, then restored", {
        on: firstHalf(),
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
    "(c) the token's write permission removed once the first create of runners 4-7 was accepted, then restored: the refused jobs say so, the next ones deploy",
    async () => {
      const before = (await emu.clusters()).length;
      await roundWithFault("(c) write permission removed during the creates, then restored", {
        on: secondHalf(),
        accepted: async () => (await emu.clusters()).length > before,
        inject: () => grant(["read"]),
        repair: () => grant(["read", "write"]),
        why: /permission|write/i,
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "(f) the database killed (kill -9 of the postmaster) after the 8 runners' creates were accepted, started again once they are done: every job deploys in its first run",
    async () => {
      await roundWithFault("(f) database killed until the creates were done", {
        inject: async () => {
          await backend.halt?.();
          try {
            // Down until the service finished every create: each job's checkpoint finds no database.
            emu.skipAhead(ROUND_PROVISION_SECONDS * 1000);
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
    "(d) the database killed for longer than the CLI waits for it (runners 0-3): the jobs fail saying so and leave their locks; (g) still down when the next jobs start: they fail at once, changing nothing; the jobs after the job timeout deploy",
    async () => {
      let halted = 0;
      let ended = 0;
      await roundWithFault("(d) database killed for longer than the CLI waits, (g) still down when the next jobs started", {
        on: firstHalf(),
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
        again: async (commits) => {
          const before = (await emu.clusters()).map((c) => c.id).sort();
          const downAtStart = await Promise.all(firstHalf().map((r, i) => merge(r, { extraEnv: commits[i] })));
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

  /** The job after the job timeout, which must deploy `commit`. */
  async function deploysAfterTimeout(runner: Runner, commit: NodeJS.ProcessEnv): Promise<JobResult> {
    const run = await merge(runner, { extraEnv: afterTimeout(commit) });
    expect(run.code, run.output).toBe(0);
    return run;
  }

  /**
   * `runner`'s merge job deploying `commit` killed while it creates (a pending create and its lock
   * left), then the next job killed while its `cms-recover` imports the stack: the job after the
   * job timeout deploys. Three runs.
   */
  async function killRecovery(runner: Runner, commit: NodeJS.ProcessEnv) {
    let pid = 0;
    const killed = merge(runner, { extraEnv: commit, onSpawn: (p) => (pid = p) });
    await eventually(async () => (await clustersOf(runner.project)).length >= stackOf(runner).clusters, {
      timeoutMs: MOMENT_TIMEOUT_MS,
      what: "the new cluster's POST",
    });
    expect(pid).toBeGreaterThan(0);
    killTree(pid);
    expect((await killed).code).not.toBe(0);
    // The next job, killed in the middle of its recovery: once `pulumi stack import` runs.
    pid = 0;
    const job = merge(runner, { extraEnv: afterTimeout(commit), onSpawn: (p) => (pid = p) });
    await eventually(() => pid > 0 && descendants(pid).some((p) => commandLine(p).includes("stack\0import")), {
      timeoutMs: MOMENT_TIMEOUT_MS,
      intervalMs: 5,
      what: "cms-recover's pulumi stack import",
    });
    // The job's whole tree, found while it lives: its plugins are in process groups of their own,
    // so a kill of its group first would leave them running, out of the tree's reach.
    killTree(pid);
    expect((await job).code).not.toBe(0);
    await deploysAfterTimeout(runner, commit);
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
    const job = merge(runner, { extraEnv: afterTimeout(commit), onSpawn: (p) => (pid = p) });
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

    const again = await deploysAfterTimeout(runner, commit);
    expect(again.output).toMatch(/removing the lock of a killed job: .*-[ab]\.json \(ci@killed-runner \(pid 4242\)/);
    return 2;
  }

  /**
   * `runner`'s merge job deploying `commit` killed (SIGKILL of its process tree) once `reached()`
   * holds: it leaves its lock, which the next job takes for a killed job's once it is older than
   * the job timeout (0 here): that job deploys. Two runs.
   */
  async function killJobWhen(runner: Runner, commit: NodeJS.ProcessEnv, reached: () => Promise<boolean>, what: string) {
    let pid = 0;
    let ended: JobResult | undefined;
    const job = merge(runner, { extraEnv: commit, onSpawn: (p) => (pid = p) }).then((run) => (ended = run));
    await eventually(
      async () => {
        // A job that ended before the moment came failed the round: say why.
        if (ended) throw new Error(`${runner.project}: the job ended (exit ${ended.code}) before ${what}:\n${ended.output}`);
        return reached();
      },
      { timeoutMs: MOMENT_TIMEOUT_MS, intervalMs: 20, what: `${runner.project}: ${what}` },
    );
    // The job's whole tree, found while it lives: its plugins are in process groups of their own,
    // so a kill of its group first would leave them running, out of the tree's reach.
    killTree(pid);
    const killed = await job;
    expect(killed.code, killed.output).not.toBe(0);
    // Not skipped ahead: another runner's job of the round may be about to reach its own moment.
    const again = await deploysAfterTimeout(runner, commit);
    expect(again.output).toMatch(/removing the lock of a killed job/);
    return 2;
  }

  /**
   * The two racers run the merge job on their stack at the same moment: each run succeeds or says
   * why it changed nothing; if both lose, the pipeline runs the job again. Never two updates of
   * the stack at once. Returns the runs it took.
   */
  async function race() {
    const stack = stacks[RUNNERS];
    const commit = addCluster(stack);
    const raced = await Promise.all(racers.map((r) => merge(r, { extraEnv: commit })));
    for (const run of raced) {
      expect([0, 3, 4], run.output).toContain(run.code);
      if (run.code === 3) expect(run.output).toContain("an update may be running; nothing was changed");
      if (run.code === 4) expect(run.output).toContain(`${LOST_RACE} (`);
      // The CLI's own refusal is in the output too; the command's verdict never rests on its wording.
      if (run.code === 4 && !run.output.includes("could not list bucket")) expect(run.output).toMatch(LOCKED);
    }
    let runs = 1;
    if (raced.every((r) => r.code !== 0)) {
      const again = await merge(racers[0], { extraEnv: commit });
      expect(again.code, again.output).toBe(0);
      runs = 2;
    }
    const updates = stackHistory(racers[0]).filter((u) => u.kind === "update");
    expect(updates.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < updates.length; i++) expect(updates[i].start).toBeGreaterThanOrEqual(updates[i - 1].end);
    return runs;
  }

  it(
    "(b) (h) one round of faults of single jobs, on different stacks: the merge job killed while its cms-recover imports the stack (runner 0), half-way through its lock clean-up (1), during a scale in place (2-4), during the destroy of a cluster the commit removed (5-7), and two runners racing on one stack: the jobs after the job timeout deploy",
    async () => {
      const since = Date.now();
      const [recovering, cleaning, ...rest] = runners;
      const scaling = rest.slice(0, 3);
      const destroying = rest.slice(3);
      // The others' commit: every cluster scaled, the last one removed (the engine deletes once
      // the updates are done).
      const removed = new Map<Runner, string>();
      const shrink = async (r: Runner) => {
        const stack = stackOf(r);
        stack.workers += 1;
        stack.clusters -= 1;
        const { ids } = await stackClusters(r);
        const gone = (await clustersOf(r.project)).find((c) => c.name.startsWith(`${r.project}-${stack.clusters}-`));
        expect(gone && ids.includes(gone.id)).toBe(true);
        removed.set(r, gone?.id ?? "");
        return commitOf(stack);
      };
      const shrunk = await Promise.all([...scaling, ...destroying].map(shrink));
      const runs = await withTimings(PROVISION_SECONDS, () =>
        Promise.all([
          killRecovery(recovering, addCluster(stackOf(recovering))),
          killCleanup(cleaning, addCluster(stackOf(cleaning))),
          ...scaling.map((r, i) =>
            killJobWhen(r, shrunk[i], async () => (await clustersOf(r.project)).some((c) => c.status === "scaling"), "a PATCH accepted"),
          ),
          ...destroying.map((r, i) =>
            killJobWhen(
              r,
              shrunk[scaling.length + i],
              async () => (await emu.clusters()).find((c) => c.id === removed.get(r))?.status === "deleting",
              "the DELETE accepted",
            ),
          ),
          race(),
        ]),
      );
      // What the service still does for the killed jobs (the deletes of the clusters their
      // commits removed, which the next jobs' refresh let go) is not waited out.
      emu.skipAhead(PROVISION_SECONDS * 1000);
      await expectConverged(
        "(b) (h) merge job killed during cms-recover's stack import, half-way through its lock clean-up, during a scale in place, during the destroy of a removed cluster; two merges racing on one stack",
        runs,
        since,
      );
      for (const r of [...scaling, ...destroying]) {
        expect((await clustersOf(r.project)).map((c) => c.workers)).toEqual(Array(stackOf(r).clusters).fill(stackOf(r).workers));
      }
    },
    STEP_TIMEOUT,
  );

  it.runIf(FULL)(
    "(f) a restore from pg_dump that loses the record of the clusters the last jobs created: the next jobs take them over by their auto-names",
    async () => {
      const dump = path.join(work, "state.sql");
      execFileSync("pg_dump", ["--clean", "--if-exists", "--table=pulumi_state", "--file", dump, backend.url]);
      const commits = runners.map((r) => addCluster(stackOf(r)));
      const deployed = await Promise.all(runners.map((r, i) => merge(r, { extraEnv: commits[i] })));
      for (const run of deployed) expect(run.code, run.output).toBe(0);
      execFileSync("psql", [backend.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump]);
      const restored = Date.now();
      for (const r of runners) expect((await stackClusters(r)).ids).toHaveLength(stackOf(r).clusters - 1);

      const after = await Promise.all(runners.map((r, i) => merge(r, { extraEnv: commits[i] })));
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
    "(f) a restore from pg_dump that loses the record of an auto-named and a named cluster of runners 0 and 1: the jobs take the first over, stop with the one command for the second, a person runs it, the next jobs deploy",
    async () => {
      const restoredOn = runners.slice(0, 2);
      const dump = path.join(work, "state-named.sql");
      execFileSync("pg_dump", ["--clean", "--if-exists", "--table=pulumi_state", "--file", dump, backend.url]);
      const commits = restoredOn.map((r) => {
        addCluster(stackOf(r));
        return addCluster(stackOf(r), { withName: true });
      });
      const deployed = await Promise.all(restoredOn.map((r, i) => merge(r, { extraEnv: commits[i] })));
      for (const run of deployed) expect(run.code, run.output).toBe(0);
      execFileSync("psql", [backend.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump]);
      const restored = Date.now();
      const lost = new Map<Runner, string>();
      for (const r of restoredOn) {
        const { clusters } = stackOf(r);
        expect((await stackClusters(r)).ids).toHaveLength(clusters - 2);
        const [cluster] = (await clustersOf(r.project)).filter((c) => c.name === `${r.project}-named-${clusters - 1}`);
        lost.set(r, cluster.id);
      }

      // The jobs stop for a person at the named cluster: nothing created, and the one command
      // named. (The engine starts no create once one failed, so the auto-named one may be taken
      // over now or by the job after.)
      const total = (await emu.clusters()).length;
      const stopped = await Promise.all(restoredOn.map((r, i) => merge(r, { extraEnv: commits[i] })));
      const commands = stopped.map((run, i) => {
        expect(run.code, run.output).toBe(2);
        const last = run.output.trim().split("\n").pop() ?? "";
        said.add(`exit 2: ${elide(last)}`);
        expect(last, run.output).toMatch(/^cms-gitops: .*a person decides/i);
        const command = /node_modules\/\.bin\/cms-recover --stack prod --adopt [\w-]+/.exec(last)?.[0];
        expect(command, run.output).toBe(`node_modules/.bin/cms-recover --stack prod --adopt ${lost.get(restoredOn[i])}`);
        return command as string;
      });
      expect((await emu.clusters()).length).toBe(total);

      // Another stack's cluster is refused, changing nothing.
      const theirs = (await stackClusters(restoredOn[1])).ids[0];
      const refused = await runBash(restoredOn[0], `node_modules/.bin/cms-recover --stack prod --adopt ${theirs}`, {
        extraEnv: commits[0],
      });
      expect(refused.code, refused.output).toBe(2);
      expect(refused.output).toMatch(/recorded by stack .*fault-1.*Nothing was changed/);

      // What a person does: the command the job named, once it is known to be this stack's, in
      // the working copy of the commit the job deployed (CLUSTERS, NAMED).
      const adopted = await Promise.all(restoredOn.map((r, i) => runBash(r, commands[i], { extraEnv: commits[i] })));
      for (const run of adopted) {
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain("recording it (named with --adopt)");
      }
      const again = await runBash(restoredOn[0], commands[0], { extraEnv: commits[0] });
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain("is recorded by this stack already");
      const state = execFileSync("pulumi", ["stack", "export", "--stack", "prod"], {
        cwd: restoredOn[0].repo,
        env: restoredOn[0].env,
        encoding: "utf8",
      });
      const record = (JSON.parse(state).deployment.resources as { id?: string; outputs?: { kubeconfig?: unknown } }[]).find(
        (res) => res.id === lost.get(restoredOn[0]),
      );
      expect(record?.outputs?.kubeconfig).toHaveProperty("ciphertext");

      const after = await Promise.all(restoredOn.map((r, i) => merge(r, { extraEnv: commits[i] })));
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
