/**
 * A self-managed backend's stack locks, read as data. Each lock is a JSON document
 * `{"pid", "username", "hostname", "timestamp"}` that the CLI writes when an update starts and
 * removes when it ends, under `.pulumi/locks/organization/PROJECT/STACK/ID.json`: a file of a
 * `file://` backend, a row of a `postgres://` backend's table.
 *
 * A lock's age is measured with the storage's own clock, never the runner's: the timestamp inside
 * the document is the clock of the machine that took it, and comparing it with this machine's
 * clock lets a runner whose clock is ahead take a live update's lock for a killed job's. On
 * PostgreSQL the age is `now() - updated_at`, both the server's (the CLI leaves `updated_at` to
 * the server); on a file backend it is a fresh file's modification time minus the lock file's, both
 * stamped by the filesystem the locks live on.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { OperationError } from "../shared/errors/operation-error";

/** One stack lock, as the storage holds it. */
export interface StackLock {
  /** Where it is, to show and to remove: `file:///…/ID.json` or `postgres:DATABASE/.pulumi/locks/…/ID.json`. */
  url: string;
  /** The key of the lock in its directory (`ID.json`): the same lock seen twice has the same key. */
  key: string;
  /** What the lock says about who took it; absent when its content could not be read. */
  owner?: LockOwner;
}

export interface LockOwner {
  pid: number;
  username: string;
  hostname: string;
}

/** A lock with its age in seconds by the storage's clock. */
export interface AgedLock extends StackLock {
  ageSeconds: number;
}

/** The locks that appeared in a stack's lock directory while it was watched. */
export interface LockWatch {
  /** Every lock seen so far, by key (with its owner once read). */
  readonly seen: ReadonlyMap<string, StackLock>;
  /** Stops watching; resolves once nothing more is read. */
  stop(): Promise<void>;
}

export interface LockStore {
  /** `.pulumi/meta.yaml`'s `version`, or undefined when the backend has none. */
  layoutVersion(): number | undefined;
  /** The stack's locks now, each with its age by the storage's clock. */
  list(): AgedLock[];
  remove(lock: AgedLock): void;
  /** Starts recording every lock that appears; resolves once it is recording. */
  watch(): Promise<LockWatch>;
}

/** The stack's lock directory under a backend's root: `.pulumi/locks/organization/PROJECT/STACK/`. */
export function stackLockDir(project: string, stack: string): string {
  return `.pulumi/locks/organization/${project}/${stack}/`;
}

function parseOwner(text: string | undefined): LockOwner | undefined {
  if (text === undefined) return undefined;
  try {
    const lock = JSON.parse(text) as Partial<LockOwner>;
    if (typeof lock.pid !== "number") return undefined;
    return { pid: lock.pid, username: String(lock.username ?? "?"), hostname: String(lock.hostname ?? "?") };
  } catch {
    return undefined;
  }
}

/** A `file://` backend: the directory the URL names (`~` is the home directory, as the CLI reads it). */
export function fileStore(backendUrl: string, project: string, stack: string): LockStore {
  let dir = decodeURIComponent(backendUrl.slice("file://".length).split("?")[0]);
  if (dir === "~" || dir.startsWith("~/")) dir = path.join(os.homedir(), dir.slice(1));
  const root = path.resolve(dir);
  const locks = path.join(root, stackLockDir(project, stack));
  const read = (file: string): string | undefined => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
  const lockOf = (key: string): StackLock => {
    const file = path.join(locks, key);
    return { url: `file://${file}`, key, owner: parseOwner(read(file)) };
  };
  /** The filesystem's time now: the modification time of a file written beside the locks, outside any stack's directory. */
  const storageNow = (): bigint => {
    const clocks = path.join(root, ".pulumi", "locks");
    fs.mkdirSync(clocks, { recursive: true });
    const probe = path.join(clocks, `.cms-gitops-clock-${process.pid}-${Math.random().toString(36).slice(2)}`);
    fs.writeFileSync(probe, "");
    try {
      return fs.statSync(probe, { bigint: true }).mtimeNs;
    } finally {
      fs.rmSync(probe, { force: true });
    }
  };
  return {
    layoutVersion: () => {
      const meta = read(path.join(root, ".pulumi", "meta.yaml"));
      return meta === undefined ? undefined : Number((parseYaml(meta) as { version?: number } | null)?.version ?? 0);
    },
    list: () => {
      let names: string[];
      try {
        names = fs.readdirSync(locks).filter((n) => n.endsWith(".json"));
      } catch {
        return [];
      }
      const now = storageNow();
      const aged: AgedLock[] = [];
      for (const key of names) {
        let mtime: bigint;
        try {
          mtime = fs.statSync(path.join(locks, key), { bigint: true }).mtimeNs;
        } catch {
          continue; // released meanwhile
        }
        aged.push({ ...lockOf(key), ageSeconds: Number((now - mtime) / 1_000_000n) / 1000 });
      }
      return aged;
    },
    remove: (lock) => fs.rmSync(path.join(locks, lock.key), { force: true }),
    watch: async () => {
      // inotify reports every lock file created, however briefly it lives (a lost race's lasts
      // milliseconds). The directory is the one the CLI writes into; an empty one is harmless to it.
      fs.mkdirSync(locks, { recursive: true });
      const seen = new Map<string, StackLock>();
      const record = (key: string) => {
        const lock = lockOf(key);
        const known = seen.get(key);
        if (!known || (!known.owner && lock.owner)) seen.set(key, lock);
      };
      const watcher = fs.watch(locks, (_event, name) => {
        if (name?.endsWith(".json")) record(name);
      });
      for (const name of fs.readdirSync(locks)) if (name.endsWith(".json")) record(name);
      return {
        seen,
        stop: async () => watcher.close(),
      };
    },
  };
}

/**
 * psql's error, on one line: the command's last line is what a pipeline shows of a failed job,
 * and says what next after it (psql words a refused connection on two lines).
 */
function oneLine(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" ");
}

/** The parts of a `postgres://` backend URL: psql's URL (without the CLI's own `table`), the table, the keys' prefix. */
export function postgresTarget(backendUrl: string): { psqlUrl: string; table: string; prefix: string } {
  const url = new URL(backendUrl);
  const table = url.searchParams.get("table") || "pulumi_state";
  url.searchParams.delete("table");
  const database = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, "");
  return { psqlUrl: url.href, table, prefix: database ? `${database}/` : "" };
}

/**
 * A `postgres://` backend, through `psql` (the password from `PGPASSWORD`, TLS from the URL's
 * parameters, as the CLI reads them). The table's name goes into the SQL as the CLI puts it there.
 */
export function postgresStore(backendUrl: string, project: string, stack: string): LockStore {
  const { psqlUrl, table, prefix } = postgresTarget(backendUrl);
  const dir = prefix + stackLockDir(project, stack);
  const psqlArgs = (vars: Record<string, string>) => [
    psqlUrl,
    "-X",
    "-q",
    "-A",
    "-t",
    "-v",
    "ON_ERROR_STOP=1",
    "-v",
    `table=${table}`,
    ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`]),
  ];
  const psql = (sql: string, vars: Record<string, string> = {}): string => {
    const r = spawnSync("psql", psqlArgs(vars), { input: sql, encoding: "utf8" });
    if (r.error) throw new OperationError(`cannot run psql (a postgres:// backend's locks are read with it): ${r.error.message}`);
    if (r.status !== 0) throw new OperationError(`psql failed (exit ${r.status}): ${oneLine(r.stderr)}`);
    return r.stdout;
  };
  const lockOf = (key: string, content: string | undefined): StackLock => ({
    url: `postgres:${key}`,
    key: key.slice(dir.length),
    owner: parseOwner(content),
  });
  return {
    layoutVersion: () => {
      const meta = psql("SELECT convert_from(decode(data->>'data', 'base64'), 'UTF8') FROM :table WHERE key = :'key'", {
        key: `${prefix}.pulumi/meta.yaml`,
      });
      return meta.trim() === "" ? undefined : Number((parseYaml(meta) as { version?: number } | null)?.version ?? 0);
    },
    list: () =>
      psql(
        "SELECT json_build_object('key', key, 'lock', convert_from(decode(data->>'data', 'base64'), 'UTF8'), " +
          "'age', extract(epoch FROM now() - updated_at)) FROM :table WHERE starts_with(key, :'dir') AND key LIKE '%.json'",
        { dir },
      )
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const row = JSON.parse(line) as { key: string; lock: string; age: number };
          return { ...lockOf(row.key, row.lock), ageSeconds: Number(row.age) };
        }),
    remove: (lock) => {
      psql("DELETE FROM :table WHERE key = :'key'", { key: dir + lock.key });
    },
    watch: () => watchRows(psqlArgs({ dir }), (key, content) => lockOf(key, content)),
  };
}

/**
 * A PostgreSQL session that reads the stack's lock rows every millisecond and reports each new
 * one as a NOTICE, which psql prints as it arrives. A lost race's rows live for a few
 * milliseconds, so polling from here, through one psql each time, would miss them.
 */
const WATCH_SQL = `SELECT set_config('cms_gitops.dir', :'dir', false), set_config('cms_gitops.table', :'table', false);
SET client_connection_check_interval = '200ms';
SET statement_timeout = '10min';
DO $watch$
DECLARE
  seen text[] := '{}';
  r record;
BEGIN
  RAISE NOTICE '%', json_build_object('watching', true);
  LOOP
    FOR r IN EXECUTE format(
      'SELECT key, convert_from(decode(data->>''data'', ''base64''), ''UTF8'') AS lock FROM %s '
      'WHERE starts_with(key, $1) AND key LIKE ''%%.json'' AND NOT (key = ANY ($2))',
      current_setting('cms_gitops.table'))
      USING current_setting('cms_gitops.dir'), seen
    LOOP
      seen := seen || r.key;
      RAISE NOTICE '%', json_build_object('key', r.key, 'lock', r.lock);
    END LOOP;
    PERFORM pg_sleep(0.001);
  END LOOP;
END
$watch$;
`;

function watchRows(args: string[], lockOf: (key: string, content: string | undefined) => StackLock): Promise<LockWatch> {
  const seen = new Map<string, StackLock>();
  const child: ChildProcess = spawn("psql", args, { stdio: ["pipe", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  child.stdin?.end(WATCH_SQL);
  let stopping = false;
  let errors = "";
  return new Promise((resolve, reject) => {
    let buffered = "";
    const watch: LockWatch = {
      seen,
      stop: async () => {
        stopping = true;
        // SIGINT: psql sends the server a cancel request, which ends the loop, then exits.
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
        await exited;
      },
    };
    child.once("error", (e) =>
      reject(new OperationError(`cannot run psql (a postgres:// backend's locks are read with it): ${e.message}`)),
    );
    child.once("close", (code) => {
      if (!stopping) reject(new OperationError(`psql, watching the stack's locks, ended (exit ${code}): ${oneLine(errors)}`));
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const notice = /NOTICE:\s+(\{.*\})\s*$/.exec(line);
        if (!notice) {
          errors += `${line}\n`;
          continue;
        }
        const row = JSON.parse(notice[1]) as { watching?: boolean; key?: string; lock?: string };
        if (row.watching) resolve(watch);
        else if (row.key) {
          const lock = lockOf(row.key, row.lock);
          seen.set(lock.key, lock);
        }
      }
    });
  });
}
