/**
 * `--state FILE`: an SQLite database (Node's built-in `node:sqlite`) that holds every cluster, so
 * that clusters, nodes and their pending transitions survive a restart, a crash or `kill -9`.
 *
 * What is promised (docs/contract.md, Persistence):
 * - A change is applied (visible to reads) and answered 2xx only once it is on disk. Changes that
 *   arrive while a commit is being written share the next one (group commit): one transaction and
 *   one fsync for all of them, written by a worker thread (worker.ts), so reads are never held
 *   up by the disk.
 * - A commit that fails (a full disk, the file size limit) leaves the file and the memory as they
 *   were: each of its changes is answered 503 `storage_unavailable` naming the cause, and a retry
 *   writes it again.
 * - One emulator per file: the database's lock is held from the first statement to the close,
 *   released by the OS when the process dies; a second emulator refuses to start naming the
 *   process that holds it, before reading or writing anything.
 * - Every record is checked when the file is loaded (record-check.ts).
 * - A JSON state of formats 1 and 2 (earlier releases) is converted once, in place.
 *
 * Changes made in place by background work (`--kubernetes` credentials, clusters whose deletion has
 * ended) are written with the next commit, and retried until they are.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { processSingleton } from "@pulumi-cms/contract";
import { storageUnavailable } from "../http/errors";
import { readLegacyState } from "./legacy-state";
import type { ClusterRecord } from "../model/records";
import { checkRecord } from "./record-check";
import type { FromWorker, Row, ToWorker } from "./worker";

/** The worker's code, beside this file (`.js` in dist, `.ts` under the tests). */
const WORKER = join(__dirname, `worker${extname(__filename)}`);
/**
 * node:sqlite warns that it is experimental (Node 22): that is for this thread only, not for the
 * user's terminal. Under the tests the worker is TypeScript, read as an ES module.
 */
const WORKER_FLAGS = [
  "--disable-warning=ExperimentalWarning",
  ...(WORKER.endsWith(".ts") ? ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON"] : []),
];
/** Records per message while converting a JSON state. */
const CONVERT_CHUNK = 2000;
/** Background changes whose commit failed are tried again after this long. */
const RETRY_MS = 1000;

/** What the store needs of the emulator's state. */
export interface StoredClusters {
  /** The cluster as it is now; undefined when it is gone. */
  cluster(id: string): ClusterRecord | undefined;
  /** True while a create of `id` is being written (not yet applied). */
  creating(id: string): boolean;
}

/** A change to write: new or changed clusters (complete records), or the end of every cluster. */
export interface Change {
  put?: ClusterRecord[];
  reset?: boolean;
}

/** What a state file held when it was opened. */
export interface Loaded {
  /** In list order, checked, with `nextAt` 0 (a settle on the first read). */
  records: ClusterRecord[];
  /** The next free subnet (node addresses): past every cluster's. */
  subnetSeq: number;
  /** What the log should say (a conversion, a recovery, dropped writes). */
  notices: string[];
}

interface Batch {
  reset: boolean;
  put: Map<string, ClusterRecord>;
  /** Ids changed in place or gone, written as they are when the batch is sent. */
  background: Set<string>;
  waiters: Array<{ resolve: () => void; reject: (e: Error) => void }>;
}

/**
 * State files open in this process (by every copy of the package loaded in it), by path and by
 * file: the database lock keeps other processes out, but not a second opener in this one, and
 * closing that second opener's handle would release the first one's lock (POSIX locks are per process).
 */
const openHere = processSingleton(Symbol.for("pulumi-cms.emulator.open-state-files"), () => new Set<string>());

/** What names `file` in {@link openHere}: its resolved path, and its device and inode once it exists. */
function identities(file: string): string[] {
  let path: string;
  try {
    path = join(realpathSync(dirname(file)), basename(file));
  } catch {
    path = resolve(file);
  }
  try {
    const { dev, ino } = statSync(file);
    return [path, `${dev}:${ino}`];
  } catch {
    return [path];
  }
}

const inUse = (file: string, holder: string) =>
  new Error(`state file ${file} is in use by ${holder}: one emulator per state file; stop that one or use another file`);

/** Messages of the worker, in order; rejects once it has failed or exited. */
class Inbox {
  private readonly queue: FromWorker[] = [];
  private waiting: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(worker: Worker, onMessage?: (m: FromWorker) => boolean) {
    worker.on("message", (m: FromWorker) => {
      if (onMessage?.(m)) return;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w.resolve(m);
      } else this.queue.push(m);
    });
    const fail = (e: Error) => {
      this.failure ??= e;
      this.waiting?.reject(this.failure);
      this.waiting = undefined;
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the state store's thread exited (code ${code})`)));
  }

  next(): Promise<FromWorker> {
    const m = this.queue.shift();
    if (m) return Promise.resolve(m);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }
}

/**
 * Which process holds the lock of `path`, from the kernel's table of locks (Linux); the database
 * lock is a POSIX lock on the file itself.
 */
function lockHolder(path: string): string {
  try {
    const { ino, dev } = statSync(path, { bigint: true });
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
      const m = /\bPOSIX\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
      if (m && BigInt(m[4]) === ino && BigInt(`0x${m[2]}`) === major && BigInt(`0x${m[3]}`) === minor) {
        return `process ${m[1]}`;
      }
    }
  } catch {
    // Not Linux, or the file is gone: say what is known.
  }
  return "another process";
}

/** Parses and checks one stored record. */
function storedRecord(file: string, [ordinal, id, text]: [number, string, string]): ClusterRecord {
  const where = `state file ${file}: record ${ordinal} (cluster ${id.slice(0, 40)})`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${where} is damaged: it is not valid JSON`);
  }
  const r = checkRecord(value);
  if (r instanceof Error) throw new Error(`${where} is damaged: ${r.message}`);
  if (r.id !== id) throw new Error(`${where} is damaged: field id is ${JSON.stringify(r.id.slice(0, 40))}, not the id it is stored under`);
  return r;
}

const row = (c: ClusterRecord): Row => [c.id, JSON.stringify(c)];

/** Writes changes to the state database; see the module comment. */
export class StateStore {
  private next: Batch | undefined;
  private inflight: { n: number; batch: Batch } | undefined;
  private commits = 0;
  /** Why the last commit failed, until one succeeds: logged once per failure. */
  private failing: string | undefined;
  private retry: NodeJS.Timeout | undefined;
  private scheduled = false;
  private stopped: Error | undefined;
  private closing: Promise<void> | undefined;
  private readonly closed: Promise<void>;
  private constructor(
    private readonly file: string,
    private readonly worker: Worker,
    private readonly clusters: StoredClusters,
    /** This file in {@link openHere}, until it is closed. */
    private readonly keys: string[],
  ) {
    this.closed = new Promise<void>((resolve) => worker.once("exit", () => resolve())).then(() => {
      for (const key of this.keys) openHere.delete(key);
    });
    worker.on("exit", () => this.stop(new Error("the state store's thread has stopped")));
    worker.on("error", (e) => this.stop(e));
  }

  /**
   * Opens `file` (creating it, or converting a JSON state of formats 1 and 2) and loads it.
   *
   * @throws Error naming the file when it is in use by another emulator (and by which process), or
   *   damaged (naming the record and the field), or cannot be opened
   */
  static async open(file: string, clusters: StoredClusters): Promise<{ store: StateStore; loaded: Loaded }> {
    const [major, minor] = process.versions.node.split(".").map(Number);
    if (major < 22 || (major === 22 && minor < 13)) {
      throw new Error(`a state file needs Node.js 22.13 or later (node:sqlite); this is Node.js ${process.versions.node}`);
    }
    // Claimed before anything is opened: two starts at once in this process must not both get there.
    const claimed = identities(file);
    if (claimed.some((key) => openHere.has(key))) throw inUse(file, `this process (pid ${process.pid})`);
    for (const key of claimed) openHere.add(key);
    const worker = new Worker(WORKER, { workerData: { file }, execArgv: WORKER_FLAGS });
    let store: StateStore | undefined;
    const inbox = new Inbox(worker, (m) => store?.receive(m) ?? false);
    try {
      const loaded = await StateStore.load(file, worker, inbox);
      // A converted file is a new one: claimed under its new identity too.
      store = new StateStore(file, worker, clusters, [...new Set([...claimed, ...identities(file)])]);
      for (const key of store.keys) openHere.add(key);
      worker.unref();
      return { store, loaded };
    } catch (e) {
      await StateStore.release(worker, inbox);
      for (const key of claimed) openHere.delete(key);
      throw e;
    }
  }

  private static async load(file: string, worker: Worker, inbox: Inbox): Promise<Loaded> {
    const post = (m: ToWorker) => worker.postMessage(m);
    let m = await inbox.next();
    if (m.type === "busy") throw inUse(file, lockHolder(m.path));
    const loaded: Loaded = { records: [], subnetSeq: 0, notices: [] };
    if (m.type === "legacy") {
      const legacy = readLegacyState(file);
      for (let i = 0; i < legacy.records.length; i += CONVERT_CHUNK) {
        post({ type: "convert", put: legacy.records.slice(i, i + CONVERT_CHUNK).map(row) });
      }
      post({ type: "converted", legacy: legacy.snapshot, remove: legacy.journals });
      m = await inbox.next();
      if (m.type !== "ready") throw new Error(m.type === "refused" ? m.message : `unexpected answer ${m.type}`);
      loaded.records = legacy.records;
      loaded.subnetSeq = legacy.subnetSeq;
      loaded.notices.push(
        ...legacy.notices,
        `state file ${file} converted to format 3 (SQLite): ${legacy.records.length} clusters; earlier releases cannot read it`,
      );
    } else {
      while (m.type === "rows") {
        for (const r of m.rows) loaded.records.push(storedRecord(file, r));
        m = await inbox.next();
      }
      if (m.type !== "loaded") throw new Error(m.type === "refused" ? m.message : `unexpected answer ${m.type}`);
      if (m.unclean) {
        loaded.notices.push(
          `state file ${file} was not closed cleanly (a crash or kill); recovered from its write-ahead log (${m.unclean.walBytes} bytes): ` +
            "every acknowledged change is kept" +
            (m.unclean.tornBytes > 0 ? `; a last write cut short (${m.unclean.tornBytes} bytes, never acknowledged) is dropped` : ""),
        );
      }
    }
    for (const r of loaded.records) {
      r.nextAt = 0; // Infinity (nothing due) was written as null
      loaded.subnetSeq = Math.max(loaded.subnetSeq, r.subnet + 1);
    }
    return loaded;
  }

  /** Closes the database (releasing its lock) after a failed start. */
  private static async release(worker: Worker, inbox: Inbox): Promise<void> {
    worker.postMessage({ type: "close" } satisfies ToWorker);
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    for (;;) {
      const m = await inbox.next().catch(() => undefined);
      if (!m || m.type === "closed") break;
    }
    await exited;
  }

  /**
   * Writes `change` with the next commit. Resolves once it is on disk; rejects with 503
   * `storage_unavailable` when it could not be written, in which case nothing of it is.
   */
  write(change: Change): Promise<void> {
    if (this.stopped) return Promise.reject(storageUnavailable(this.file, this.stopped.message));
    const batch = this.batch();
    if (change.reset) {
      // Everything before it in this batch is gone with it.
      batch.reset = true;
      batch.put.clear();
      batch.background.clear();
    }
    for (const c of change.put ?? []) batch.put.set(c.id, c);
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    this.soon();
    return done;
  }

  /** Cluster `id` changed in place (or is gone): written as it is with the next commit. */
  later(id: string): void {
    if (this.stopped) return;
    this.batch().background.add(id);
    if (!this.retry) this.soon();
  }

  /** Sends the next batch once the requests read in this turn of the event loop have added to it. */
  private soon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Writes what is pending and closes the database: only FILE remains. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Nothing else may keep the process alive meanwhile (the server has stopped).
      this.worker.ref();
      clearTimeout(this.retry);
      this.retry = undefined;
      if (!this.stopped) {
        // Batches are written in order: once this empty one is, so is everything before it.
        await this.write({}).catch(() => undefined);
        this.worker.postMessage({ type: "close" } satisfies ToWorker);
      }
      await this.closed;
    })();
    return this.closing;
  }

  private batch(): Batch {
    this.next ??= { reset: false, put: new Map(), background: new Set(), waiters: [] };
    return this.next;
  }

  /** Sends the next batch unless one is being written. */
  private pump(): void {
    if (this.inflight || !this.next || this.stopped) return;
    const batch = this.next;
    this.next = undefined;
    const put: Row[] = [];
    const del: string[] = [];
    for (const id of batch.background) {
      if (batch.put.has(id) || this.clusters.creating(id)) continue;
      const c = this.clusters.cluster(id);
      if (c) put.push(row(c));
      else del.push(id);
    }
    for (const c of batch.put.values()) put.push(row(c));
    const n = ++this.commits;
    this.inflight = { n, batch };
    // A commit under way keeps the process alive (its writer is waiting for it); an idle store does not.
    this.worker.ref();
    this.worker.postMessage({ type: "commit", n, reset: batch.reset, del, put } satisfies ToWorker);
  }

  /** A commit's outcome; true when the message was one. */
  private receive(m: FromWorker): boolean {
    if (m.type !== "done" && m.type !== "failed") return false;
    const batch = this.inflight?.batch;
    this.inflight = undefined;
    if (!this.closing) this.worker.unref();
    if (!batch) return true;
    if (m.type === "done") {
      if (this.failing) process.stderr.write(`cms-emulator: state file ${this.file} is written again\n`);
      this.failing = undefined;
      for (const w of batch.waiters) w.resolve();
      this.pump();
      return true;
    }
    if (this.failing !== m.cause) {
      process.stderr.write(
        `cms-emulator: cannot write state file ${this.file}: ${m.cause}; changes are refused (503 storage_unavailable) until it can be written\n`,
      );
    }
    this.failing = m.cause;
    const error = storageUnavailable(this.file, m.cause);
    for (const w of batch.waiters) w.reject(error);
    if (batch.background.size > 0) {
      for (const id of batch.background) this.batch().background.add(id);
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.pump();
      }, RETRY_MS).unref();
    }
    if (this.next?.waiters.length) this.pump();
    return true;
  }

  private stop(e: Error): void {
    if (this.stopped) return;
    this.stopped = e;
    clearTimeout(this.retry);
    const error = storageUnavailable(this.file, e.message);
    for (const b of [this.inflight?.batch, this.next]) for (const w of b?.waiters ?? []) w.reject(error);
    this.inflight = undefined;
    this.next = undefined;
  }
}
