/**
 * The thread that owns the SQLite database of `--state FILE` (see database.ts for what is promised).
 * A commit waits for its fsync here, so the event loop that serves requests never does.
 *
 * Runs as compiled JavaScript from dist/ and, under the tests, as this very file through Node's
 * type stripping: hence Node built-ins only, and only erasable TypeScript.
 *
 * The database: one table, `clusters` (id, record = the ClusterRecord as JSON text), whose rowid is
 * the list order (a new row gets the next one, a changed row keeps its own); `PRAGMA
 * application_id` marks it as this emulator's and `PRAGMA user_version` says its format. A commit
 * writes the pages of the rows it changes and of the id index, nothing else. WAL with `synchronous=FULL`: a commit is on disk when it returns.
 * `locking_mode=EXCLUSIVE`: the first statement takes the file's lock and it is held until the
 * database is closed, released by the OS if the process dies; a second emulator gets SQLITE_BUSY
 * before it has read or written anything.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statfsSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

/** "CMSE": set in every state database, so that another application's SQLite file is refused. */
const APPLICATION_ID = 0x434d5345;
/** Format of the state file: 1 and 2 were JSON (a snapshot, then a snapshot plus journals), 3 is SQLite. */
export const SQLITE_FORMAT = 3;
/** The WAL is truncated to this after a checkpoint (a large conversion would otherwise leave it large). */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** Records per message while loading. */
const LOAD_CHUNK = 2000;
const SQLITE_BUSY = 5;
const SCHEMA = "CREATE TABLE clusters (id TEXT PRIMARY KEY, record TEXT NOT NULL)";
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** One stored cluster: its id and its record as JSON text. */
export type Row = [id: string, record: string];

/** What the worker is told. */
export type ToWorker =
  | { type: "commit"; n: number; reset: boolean; del: string[]; put: Row[] }
  | { type: "convert"; put: Row[] }
  | { type: "converted"; legacy: { size: number; mtimeMs: number }; remove: string[] }
  | { type: "close" };

/** What the worker answers. */
export type FromWorker =
  | { type: "busy"; path: string }
  | { type: "refused"; message: string }
  | { type: "legacy" }
  | { type: "rows"; rows: Array<[ordinal: number, id: string, record: string]> }
  | { type: "loaded"; unclean?: { walBytes: number; tornBytes: number } }
  | { type: "ready" }
  | { type: "done"; n: number }
  | { type: "failed"; n: number; cause: string }
  | { type: "closed" };

interface SqliteError extends Error {
  errcode?: number;
}

const port = parentPort;
if (!port) throw new Error("worker.ts runs as a worker thread of database.ts");
const file = (workerData as { file: string }).file;
const send = (m: FromWorker) => port.postMessage(m);
/** Why SQLite failed, without anything the database holds. */
const cause = (e: unknown) => {
  const err = e as SqliteError;
  return err.errcode !== undefined ? `${err.message} (SQLite error ${err.errcode})` : err.message;
};

/** Room that counts as none: a commit needs a few pages, and the file system keeps some back. */
const NO_ROOM = 1024 * 1024;

/**
 * Why a commit failed, in words a user can act on. SQLite says "disk I/O error" for a write past the
 * file size limit (EFBIG) and "database or disk is full" for ENOSPC; which it is shows in the free
 * space of the file system and in the limit (Linux: /proc/self/limits).
 */
function diagnose(e: unknown): string {
  const sqlite = cause(e);
  try {
    const { bavail, bsize } = statfsSync(dirname(file));
    if (bavail * bsize < NO_ROOM) return `the disk is full: ${sqlite}`;
  } catch {
    // No statfs here: SQLite's words are all there is.
  }
  try {
    const limit = /^Max file size\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    const largest = Math.max(...[file, `${file}-wal`].map((f) => (existsSync(f) ? statSync(f).size : 0)));
    if (limit !== undefined && largest + NO_ROOM > Number(limit)) return `the file size limit of ${limit} bytes is reached: ${sqlite}`;
  } catch {
    // Not Linux.
  }
  return sqlite;
}

/** What is at `path`: nothing (or an empty file), an SQLite database, or something else (a JSON state of format 1 or 2). */
function kindOf(path: string): "none" | "sqlite" | "other" {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "none";
    throw e;
  }
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n === 0) return "none";
    return head.toString("latin1") === "SQLite format 3\0" ? "sqlite" : "other";
  } finally {
    closeSync(fd);
  }
}

/** Opens `path` and takes its lock; throws SQLITE_BUSY (errcode 5) when another process holds it, having changed nothing. */
function lock(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA locking_mode=EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

const number = (db: DatabaseSync, sql: string) => Number(Object.values(db.prepare(sql).get() ?? {})[0] ?? 0);

/** A new database gets the schema; an existing one must be this emulator's, of this format. */
function prepare(db: DatabaseSync, path: string): void {
  const applicationId = number(db, "PRAGMA application_id");
  const tables = number(db, "SELECT count(*) FROM sqlite_master");
  if (applicationId === 0 && tables === 0) {
    db.exec(`PRAGMA application_id=${APPLICATION_ID}; PRAGMA user_version=${SQLITE_FORMAT}`);
    db.exec("PRAGMA journal_mode=WAL");
    db.exec(SCHEMA);
  } else if (applicationId !== APPLICATION_ID) {
    throw new Error(`state file ${path} is an SQLite database, but not an emulator state file`);
  } else if (number(db, "PRAGMA user_version") !== SQLITE_FORMAT) {
    throw new Error(
      `state file ${path} is of format ${number(db, "PRAGMA user_version")}; this emulator reads format ${SQLITE_FORMAT} (and converts 1 and 2)`,
    );
  }
  db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA journal_size_limit=${WAL_SIZE_LIMIT}`);
}

/**
 * How the previous run ended, from the WAL it left (read before SQLite recovers it): a clean stop
 * leaves none. A WAL that is not a whole number of frames ends in a write cut short.
 */
function uncleanStop(path: string): { walBytes: number; tornBytes: number } | undefined {
  let walBytes: number;
  try {
    walBytes = statSync(`${path}-wal`).size;
  } catch {
    return undefined;
  }
  if (walBytes === 0) return undefined;
  const head = Buffer.alloc(2);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, 2, 16);
  } finally {
    closeSync(fd);
  }
  const pageSize = head.readUInt16BE(0) === 1 ? 65536 : head.readUInt16BE(0);
  const frame = 24 + pageSize;
  const tornBytes = walBytes < 32 ? walBytes : (walBytes - 32) % frame;
  return { walBytes, tornBytes };
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Not supported on this platform: the rename is as durable as it gets.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Files of the JSON formats (journals, snapshot temporaries) beside an SQLite state: left by a conversion cut short. */
function removeLegacyLeftovers(path: string): void {
  const dir = dirname(path);
  const base = basename(path);
  for (const name of readdirSync(dir)) {
    const journal = name.startsWith(`${base}.journal-`) && /^\d+$/.test(name.slice(base.length + 9));
    const temporary = name.startsWith(`.${base}.`) && name.endsWith(".tmp");
    if (journal || temporary) unlinkSync(join(dir, name));
  }
}

let db: DatabaseSync | undefined;
/** The database a JSON state is converted into before it replaces it. */
let target: DatabaseSync | undefined;
const converting = `${file}.converting`;

function start(): void {
  let kind = kindOf(file);
  if (kind === "other") {
    target = lock(converting);
    // Converted meanwhile by an emulator that has let it go again: open the result instead.
    kind = kindOf(file);
    if (kind === "other") {
      target.exec(
        `BEGIN; DROP TABLE IF EXISTS clusters; ${SCHEMA}; PRAGMA application_id=${APPLICATION_ID}; PRAGMA user_version=${SQLITE_FORMAT}`,
      );
      send({ type: "legacy" });
      return;
    }
    target.close();
    target = undefined;
    unlinkSync(converting);
  }
  const unclean = kind === "sqlite" ? uncleanStop(file) : undefined;
  db = lock(file);
  prepare(db, file);
  removeLegacyLeftovers(file);
  const rows: Array<[number, string, string]> = [];
  let ordinal = 0;
  for (const row of db.prepare("SELECT id, record FROM clusters ORDER BY rowid").iterate()) {
    const r = row as { id: string; record: string };
    rows.push([++ordinal, r.id, r.record]);
    if (rows.length === LOAD_CHUNK) send({ type: "rows", rows: rows.splice(0) });
  }
  if (rows.length > 0) send({ type: "rows", rows });
  send({ type: "loaded", ...(unclean ? { unclean } : {}) });
}

/** Records of the converted state, in list order. */
function convert(put: Row[]): void {
  if (!target) throw new Error("no conversion under way");
  const insert = target.prepare("INSERT INTO clusters (id, record) VALUES (?, ?)");
  for (const [id, record] of put) insert.run(id, record);
}

/**
 * The converted database replaces the JSON state: committed, renamed over FILE (still locked: the
 * lock belongs to the file, whatever its name), then opened under its own name, then the JSON
 * journals go. A crash before the rename leaves the JSON state, which the next start converts again.
 */
function converted(m: Extract<ToWorker, { type: "converted" }>): void {
  if (!target) throw new Error("no conversion under way");
  target.exec("COMMIT");
  const now = statSync(file);
  if (now.size !== m.legacy.size || now.mtimeMs !== m.legacy.mtimeMs) {
    throw new Error(`state file ${file} changed while it was being converted (is an older cms-emulator using it?)`);
  }
  renameSync(converting, file);
  syncDirectory(dirname(file));
  target.close();
  target = undefined;
  for (const leftover of [`${converting}-journal`, `${converting}-wal`]) if (existsSync(leftover)) unlinkSync(leftover);
  db = lock(file);
  prepare(db, file);
  for (const path of m.remove) if (existsSync(path)) unlinkSync(path);
  removeLegacyLeftovers(file);
  syncDirectory(dirname(file));
  send({ type: "ready" });
}

let statements: { upsert: StatementSync; remove: StatementSync } | undefined;

function commit(m: Extract<ToWorker, { type: "commit" }>): void {
  if (!db) throw new Error("the state database is not open");
  statements ??= {
    // A new cluster goes at the end of the list order; a changed one keeps its place.
    upsert: db.prepare("INSERT INTO clusters (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record"),
    remove: db.prepare("DELETE FROM clusters WHERE id = ?"),
  };
  const { upsert, remove } = statements;
  try {
    db.exec("BEGIN IMMEDIATE");
    if (m.reset) db.exec("DELETE FROM clusters");
    for (const id of m.del) remove.run(id);
    for (const [id, record] of m.put) upsert.run(id, record);
    db.exec("COMMIT");
  } catch (e) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // SQLite has rolled it back already (a full disk does that).
    }
    send({ type: "failed", n: m.n, cause: diagnose(e) });
    return;
  }
  send({ type: "done", n: m.n });
}

port.on("message", (m: ToWorker) => {
  try {
    if (m.type === "commit") {
      try {
        commit(m);
      } catch (e) {
        send({ type: "failed", n: m.n, cause: diagnose(e) });
      }
    } else if (m.type === "convert") convert(m.put);
    else if (m.type === "converted") converted(m);
    else {
      if (target) {
        // A conversion given up (the JSON state is damaged): nothing of it stays.
        unlinkSync(converting);
        target.close();
        for (const leftover of [`${converting}-journal`, `${converting}-wal`]) if (existsSync(leftover)) unlinkSync(leftover);
        target = undefined;
      }
      db?.close();
      db = undefined;
      send({ type: "closed" });
      port.close();
    }
  } catch (e) {
    send({ type: "refused", message: cause(e) });
  }
});

try {
  start();
} catch (e) {
  const err = e as SqliteError;
  if (err.errcode === SQLITE_BUSY) send({ type: "busy", path: target || kindOf(file) === "other" ? converting : file });
  else if (err.errcode === SQLITE_CORRUPT || err.errcode === SQLITE_NOTADB)
    send({ type: "refused", message: `state file ${file} is damaged: ${cause(e)}` });
  else send({ type: "refused", message: err.errcode !== undefined ? `cannot write state file ${file}: ${cause(e)}` : err.message });
}
