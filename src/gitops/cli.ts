#!/usr/bin/env node
/**
 * `cms-gitops merge`: docs/gitops.md's merge job, as a command. In the project directory, logged
 * in to the stack's self-managed backend (`PULUMI_BACKEND_URL`):
 *
 * 1. the stack's locks, read as data from the backend (`file://`: the lock files; `postgres://`:
 *    the rows, with `psql`), each aged by the storage's own clock (`locks.ts`). A lock younger than
 *    the job timeout may be a running update's: the job changes nothing and exits 3. When all are
 *    older, they are killed jobs': it removes exactly those. Never `pulumi cancel`, which would
 *    also remove a lock taken a moment ago;
 * 2. `cms-recover`, which records the clusters a killed job created (exit 2 passed on: a person
 *    must choose);
 * 3. `pulumi up --refresh`. If it fails without recording an update while another process's lock
 *    appeared in the stack, another update started at the same moment (`verdicts.ts`): exit 4, run
 *    the job again. Any other failure: exit 1, with the CLI's own output above.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { UNRECORDED_NAME } from "../shared/domain/ownership";
import { OperationError } from "../shared/errors/operation-error";
import { fileStore, type LockOwner, type LockStore, type LockWatch, postgresStore, stackLockDir, type StackLock } from "./locks";
import { describeOwner, judgeLocks, rivalLock } from "./verdicts";

const USAGE = `Usage: cms-gitops merge --stack NAME --job-timeout MINUTES

The merge job of docs/gitops.md: in the project directory, logged in to the stack's
self-managed backend (PULUMI_BACKEND_URL, file:// or postgres://):

  1. removes the stack's locks left by killed jobs: those older than the job timeout, their
     age measured by the backend's own clock; with a younger lock (an update may be running)
     it changes nothing;
  2. runs cms-recover (records the clusters a killed job created);
  3. runs pulumi up --refresh --yes --non-interactive --skip-preview.

  --stack NAME            the stack
  --job-timeout MINUTES   the longest a job can run in your CI (default: JOB_TIMEOUT_MINUTES)
  -h, --help              this help

Exit codes:
  0  deployed
  1  failed (cms-recover or pulumi up: their output says why)
  2  a person must choose: which cluster a killed job created, or whether a cluster that
     carries a Cluster's explicit name and that the stack does not record is this stack's
     (the message names the command)
  3  the stack is locked by an update that may be running: nothing was changed; run it later
  4  another update of this stack started at the same moment: nothing was changed; run it again
  64 wrong usage, or a backend whose locks it cannot read (the message says what to do)
`;

const EXIT = { deployed: 0, failed: 1, personMustChoose: 2, locked: 3, lostRace: 4, usage: 64 } as const;

class UsageError extends OperationError {}

function say(line: string): void {
  process.stderr.write(`cms-gitops: ${line}\n`);
}

function pulumiCommand(): string {
  return process.env.PULUMI_COMMAND || "pulumi";
}

function projectName(): string {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    if (!fs.existsSync(file)) continue;
    const name = (parseYaml(fs.readFileSync(file, "utf8")) as { name?: unknown } | null)?.name;
    if (typeof name === "string" && name) return name;
    throw new UsageError(`${file} names no project`);
  }
  throw new UsageError("no Pulumi.yaml here: run it in the project's directory");
}

function backendUrl(): string {
  const fromEnv = process.env.PULUMI_BACKEND_URL?.trim();
  if (fromEnv) return fromEnv;
  const r = spawnSync(pulumiCommand(), ["whoami", "--json", "--non-interactive"], { encoding: "utf8" });
  const url = r.status === 0 ? (JSON.parse(r.stdout) as { url?: string }).url : undefined;
  if (!url) throw new UsageError("no PULUMI_BACKEND_URL, and `pulumi whoami` names no backend: log in first");
  return url;
}

/** `prod` or `organization/PROJECT/prod`. */
function stackParts(stack: string, project: string): { project: string; stack: string } {
  const parts = stack.split("/");
  if (parts.length === 1) return { project, stack };
  if (parts.length === 3) return { project: parts[1], stack: parts[2] };
  throw new UsageError(`--stack ${stack}: a stack's name, or organization/PROJECT/STACK`);
}

function storeFor(url: string, project: string, stack: string): LockStore {
  if (url.startsWith("file://")) return fileStore(url, project, stack);
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return postgresStore(url, project, stack);
  const scheme = url.split("://")[0];
  throw new UsageError(
    `it reads the locks of file:// and postgres:// backends, not ${scheme}://. On this backend, do its three steps with your storage's own tool ` +
      `(docs/gitops.md, "What cms-gitops merge does"): list ${url.replace(/\/+$/, "")}/${stackLockDir(project, stack)}*.json, ` +
      "and if every one is older than the job timeout by the storage's clock (its last-modified time against that of an object you write now), " +
      `remove them (never \`pulumi cancel\`); then \`cms-recover --stack ${stack}\` and \`pulumi up --stack ${stack} --refresh --yes --non-interactive --skip-preview\``,
  );
}

/** The newest update the stack records (its version), to tell whether a failed `pulumi up` recorded one. */
function latestUpdate(stack: string): number | undefined {
  const r = spawnSync(pulumiCommand(), ["stack", "history", "--stack", stack, "--json", "--page-size", "1", "--non-interactive"], {
    encoding: "utf8",
  });
  if (r.status !== 0) return undefined;
  try {
    const updates = JSON.parse(r.stdout) as Array<{ version?: number }> | null;
    return Math.max(0, ...(updates ?? []).map((u) => u.version ?? 0));
  } catch {
    return undefined;
  }
}

/**
 * Runs `command`; with `seen`, its output is passed on as it comes and also handed to `seen`
 * (the lines the command looks for in `pulumi up`'s output), under the environment `env` adds.
 */
function run(
  command: string,
  args: string[],
  onSpawn?: (pid: number) => void,
  { env, seen }: { env?: NodeJS.ProcessEnv; seen?: (text: string) => void } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: seen ? ["inherit", "pipe", "pipe"] : "inherit",
      env: env ? { ...process.env, ...env } : process.env,
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      from?.on("data", (chunk: Buffer) => {
        to.write(chunk);
        seen?.(chunk.toString("utf8"));
      });
    }
    child.once("spawn", () => child.pid && onSpawn?.(child.pid));
    child.once("error", (e) => reject(new OperationError(`cannot run ${command}: ${e.message}`)));
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
  });
}

/**
 * How long the lock directory is watched once a new lock is in it: an update checks for other
 * locks right after it writes its own, so a race is decided within milliseconds of the first.
 */
const WATCH_AFTER_FIRST_LOCK_MS = 3_000;

async function merge(stackArg: string, jobTimeoutMinutes: number): Promise<number> {
  const parts = stackParts(stackArg, projectName());
  const url = backendUrl();
  const store = storeFor(url, parts.project, parts.stack);
  const layout = store.layoutVersion();
  // An older CLI's layout keeps the locks elsewhere: finding none there proves nothing.
  if (layout === undefined || layout < 1) {
    throw new UsageError(
      `${url.split("?")[0].replace(/\/\/[^/@]*@/, "//")} has no .pulumi/meta.yaml with version 1: it holds no stack yet (log in and create the stack first), ` +
        "or it is in the layout of older CLIs, which keeps locks where this command does not look (move it to the current layout once with `pulumi state upgrade`)",
    );
  }

  const locks = store.list();
  const verdict = judgeLocks(locks, jobTimeoutMinutes);
  if ("live" in verdict) {
    const { live } = verdict;
    say(
      `the stack is locked by ${describeOwner(live.owner)}, taken ${Math.round(live.ageSeconds)}s ago by the backend's clock ` +
        `(less than the job timeout, ${jobTimeoutMinutes} min): an update may be running; nothing was changed. ` +
        "Run the job again later: once the lock is older than the job timeout, it is a killed or failed job's, and the job removes it",
    );
    return EXIT.locked;
  }
  for (const lock of verdict.stale) {
    say(
      `removing the lock of a killed job: ${lock.url} (${describeOwner(lock.owner)}, taken ${Math.round(lock.ageSeconds)}s ago by the backend's clock)`,
    );
    store.remove(lock);
  }

  const recovered = await run(process.execPath, [path.join(__dirname, "..", "recover", "cli.js"), "--stack", stackArg]);
  if (recovered === 2) return EXIT.personMustChoose;
  if (recovered !== 0) {
    say(`cms-recover failed (exit ${recovered}); pulumi up was not run. Its output above says why; once that is fixed, run the job again`);
    return EXIT.failed;
  }

  const before = new Set(store.list().map((l) => l.key));
  const recordedBefore = latestUpdate(stackArg);
  const watch: LockWatch = await store.watch();
  let upPid = 0;
  let stopTimer: NodeJS.Timeout | undefined;
  const firstLockSeen = setInterval(() => {
    const appeared = [...watch.seen.keys()].some((key) => !before.has(key));
    if (appeared && !stopTimer) stopTimer = setTimeout(() => void watch.stop(), WATCH_AFTER_FIRST_LOCK_MS);
  }, 50);
  let code: number;
  let output = "";
  try {
    code = await run(
      pulumiCommand(),
      ["up", "--stack", stackArg, "--refresh", "--yes", "--non-interactive", "--skip-preview"],
      (pid) => {
        upPid = pid;
      },
      // A Cluster with an explicit name whose cluster the stack does not record stops the job
      // for a person instead of creating a second one (`refuseUnrecordedName`).
      { env: { CMS_EXISTING_NAME: "stop" }, seen: (text) => (output += text) },
    );
  } finally {
    clearInterval(firstLockSeen);
    clearTimeout(stopTimer);
    await watch.stop();
  }
  if (code === 0) return EXIT.deployed;

  const recorded = latestUpdate(stackArg);
  // Without the history (the command failed), the locks alone decide.
  const noUpdateRecorded = recorded === undefined || recordedBefore === undefined || recorded === recordedBefore;
  const ours = { pid: upPid, hostname: os.hostname() };
  const after = readable(() => store.list());
  const rival: StackLock | undefined = noUpdateRecorded ? rivalLock(before, watch.seen.values(), after ?? [], ours) : undefined;
  if (rival) {
    say(
      `another update of this stack started at the same moment (${describeOwner(rival.owner)}, lock ${rival.url}); run the job again. ` +
        "This update changed nothing. (Not `pulumi cancel`, which the CLI's message above may suggest: that lock is the other update's.)",
    );
    return EXIT.lostRace;
  }
  const adopt = unrecordedNames(output);
  if (adopt.length > 0) {
    say(
      `pulumi up stopped (exit ${code}): a Cluster's explicit name is carried by a cluster ${UNRECORDED_NAME} (a restore of the state may have lost its record), ` +
        "and a name cannot tell whose it is; the output above names it. A person decides: if it is this stack's, run " +
        `${adopt.join(" and ")}, then run the job again; if it is not, give the Cluster another name in the program`,
    );
    return EXIT.personMustChoose;
  }
  say(`pulumi up failed (exit ${code}); its output above says why. ${afterFailure(after, ours, jobTimeoutMinutes)}`);
  return EXIT.failed;
}

/** The `cms-recover --adopt` commands the provider named in `pulumi up`'s output, each once. */
function unrecordedNames(output: string): string[] {
  const commands = new Set<string>();
  for (const line of output.split("\n")) {
    if (!line.includes(UNRECORDED_NAME)) continue;
    const command = /node_modules\/\.bin\/cms-recover --stack \S+ --adopt [\w-]+/.exec(line);
    if (command) commands.add(command[0]);
  }
  return [...commands];
}

/** What `f` returns, or undefined when the backend cannot be read (the database is away). */
function readable<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * What the pipeline does after a failed `pulumi up`, from the stack's locks as they are now
 * (`undefined`: the backend could not be read). A `pulumi up` that could not reach its backend at
 * its end leaves its lock behind; the next job refuses it (exit 3) until it is older than the job
 * timeout.
 */
function afterFailure(after: StackLock[] | undefined, ours: Pick<LockOwner, "pid" | "hostname">, jobTimeoutMinutes: number): string {
  const again = "run the job again: it records what this run created and finishes the work";
  const wait = `the next job refuses to run (exit 3) until that lock is older than the job timeout (${jobTimeoutMinutes} min), then removes it`;
  if (after === undefined) {
    return `The backend cannot be read now either: once it is back, ${again}. If this run's lock is still there, ${wait}.`;
  }
  const left = after.find((l) => l.owner?.pid === ours.pid && l.owner.hostname === ours.hostname);
  if (left) return `It left its lock (${left.url}): ${wait}; ${again}.`;
  return `Once that is fixed, ${again}.`;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      stack: { type: "string" },
      "job-timeout": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "merge") throw new UsageError(`a command: merge\n\n${USAGE}`);
  if (!values.stack) throw new UsageError("--stack NAME");
  const timeout = values["job-timeout"] ?? process.env.JOB_TIMEOUT_MINUTES;
  const minutes = Number(timeout);
  if (timeout === undefined || timeout.trim() === "" || !Number.isFinite(minutes) || minutes < 0) {
    throw new UsageError("--job-timeout MINUTES (or JOB_TIMEOUT_MINUTES): the longest a job can run in your CI, in minutes");
  }
  return merge(values.stack, minutes);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    const usage = e instanceof UsageError || (e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION";
    const message = e instanceof Error ? e.message : String(e);
    // Any other failure is the backend's or a tool's, before pulumi up changed anything.
    say(usage ? message : `${message}. Once that is fixed (the backend reachable again), run the job again`);
    process.exit(usage ? EXIT.usage : EXIT.failed);
  },
);
