/**
 * `--state FILE`: clusters, nodes and their pending transitions survive a restart, and a change
 * is acknowledged only once it is on disk.
 *
 * Files (all in FILE's directory):
 * - FILE, the snapshot: every cluster as of journal line `seq`, plus the generation of the
 *   journal that continues it. Written to a temporary file, fsync'd, renamed over the old one.
 * - FILE.journal-<generation>: append-only, one JSON line per commit
 *   (`{seq, subnet_seq, put: [records], del: [ids]}`), fsync'd before the changes it holds are
 *   acknowledged. Records are whole, so replaying a line twice is harmless.
 *
 * Group commit: changes made while a commit is being written go into the next one, so the cost
 * of a change is its own records, however many clusters there are, and concurrent writers share
 * each fsync. Compaction: when the journal outgrows the snapshot (at least 1 MiB), a new journal
 * generation starts and the snapshot is rewritten in slices that yield to requests between them;
 * then older journals are removed. A crash at any point leaves a snapshot plus journals that
 * replay to every acknowledged change. A torn last line (a commit cut by the crash, never
 * acknowledged) is ignored.
 *
 * The records hold timestamps, so progress made while the emulator was down is applied on the
 * first read after the restart; such progress is not a change and is not journaled.
 */
import { promises as fs, readdirSync, readFileSync, unlinkSync } from "node:fs";
import * as path from "node:path";
import type { ClusterRecord } from "./lifecycle";
import type { EmulatorState } from "./state";

/** Version 2 has journals; version 1 (a snapshot alone) is still read. */
export const STATE_FORMAT_VERSION = 2;
/** Compaction starts once the journal is this large and larger than the snapshot. */
export const MIN_COMPACT_BYTES = 1024 * 1024;
/** Records serialised per slice of a snapshot before yielding to requests. */
const SLICE = 500;

interface Snapshot {
  version: number;
  saved_at: string;
  subnet_seq: number;
  /** Last journal line included (version 2). */
  seq?: number;
  /** Generation of the journal that continues this snapshot (version 2). */
  journal?: number;
  clusters: ClusterRecord[];
}

interface JournalLine {
  seq: number;
  subnet_seq: number;
  put?: ClusterRecord[];
  del?: string[];
  /** Every cluster was forgotten (control reset) before `put`. */
  reset?: boolean;
}

const journalPath = (file: string, generation: number) => `${file}.journal-${generation}`;

/** Journal generations present for `file`, ascending. */
function journalGenerations(file: string): number[] {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.journal-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => Number(n.slice(prefix.length)))
    .sort((a, b) => a - b);
}

/** Temporary snapshot files, left behind only by a process killed while writing one. */
function removeStaleTemporaries(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(prefix) && n.endsWith(".tmp")) unlinkSync(path.join(dir, n));
}

/** Where the loaded state continues: the next journal line and generation. */
export interface LoadedPosition {
  seq: number;
  generation: number;
}

/**
 * Loads the snapshot and replays the journals into `state`. Missing files are an empty state; an
 * unreadable or malformed snapshot throws (it is left untouched, never overwritten by an empty
 * state).
 */
export function loadState(file: string, state: EmulatorState): LoadedPosition {
  removeStaleTemporaries(file);
  let snapshot: Snapshot | undefined;
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot read state file ${file}: ${(e as Error).message}`);
  }
  if (text !== undefined) {
    try {
      snapshot = JSON.parse(text) as Snapshot;
    } catch {
      // Not the parser's message: it can quote the file, which holds kubeconfig credentials.
      throw new Error(`state file ${file} is not valid JSON`);
    }
    if (!snapshot || (snapshot.version !== 1 && snapshot.version !== STATE_FORMAT_VERSION) || !Array.isArray(snapshot.clusters)) {
      throw new Error(`state file ${file} is not an emulator state file of version 1 or ${STATE_FORMAT_VERSION}`);
    }
  }
  const records = new Map<string, ClusterRecord>();
  for (const c of snapshot?.clusters ?? []) records.set(c.id, c);
  let subnetSeq = Number(snapshot?.subnet_seq) || records.size;
  const fromSeq = snapshot?.seq ?? 0;
  let seq = fromSeq;
  const first = snapshot?.journal ?? 0;
  const generations = journalGenerations(file).filter((g) => g >= first);
  for (const generation of generations) {
    const lines = readFileSync(journalPath(file, generation), "utf8").split("\n");
    lines.forEach((raw, i) => {
      if (raw === "") return;
      let line: JournalLine;
      try {
        line = JSON.parse(raw) as JournalLine;
      } catch {
        // A commit cut short by a crash is the last line and was never acknowledged.
        if (i === lines.length - 1) return;
        throw new Error(`state journal ${journalPath(file, generation)} is damaged at line ${i + 1}`);
      }
      if (line.seq <= seq) return;
      seq = line.seq;
      if (line.reset) records.clear();
      for (const id of line.del ?? []) records.delete(id);
      for (const c of line.put ?? []) {
        records.delete(c.id); // re-inserted: a reset then put keeps creation order by re-adding
        records.set(c.id, c);
      }
      subnetSeq = Math.max(subnetSeq, Number(line.subnet_seq) || 0);
    });
  }
  state.clearClusters();
  for (const c of [...records.values()].sort(byCreation)) {
    // nextAt is Infinity when idle, which JSON cannot hold: force a settle on first read.
    c.nextAt = 0;
    state.add(c);
    if (c.op?.kind === "delete") state.markDeleting(c.id);
  }
  state.subnetSeq = Math.max(subnetSeq, records.size);
  return { seq, generation: Math.max(first, ...generations, 0) };
}

/** List order is creation order (ids are random): created_at, then the subnet, which only grows. */
function byCreation(a: ClusterRecord, b: ClusterRecord): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.subnet - b.subnet;
}

/** Writes changes to the journal with group commit, and compacts it; see the module comment. */
export class Persister {
  private readonly dirty = new Set<string>();
  private resetPending = false;
  private seq: number;
  private generation: number;
  /** The open journal of {@link generation} (a promise, so concurrent openers share one handle). */
  private journal: Promise<fs.FileHandle> | undefined;
  private journalBytes = 0;
  private snapshotBytes = 0;
  /** The commit being written, and the one queued behind it (which takes every change until it starts). */
  private inflight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private compacting: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly state: EmulatorState,
    position: LoadedPosition = { seq: 0, generation: 0 },
  ) {
    this.seq = position.seq;
    this.generation = position.generation;
  }

  /**
   * Starts: writes a fresh snapshot of what was loaded and an empty journal (so an unwritable
   * path fails at once), and removes the journals the snapshot replaces.
   */
  async open(): Promise<void> {
    await this.compact();
  }

  /** Notes a change of cluster `id` (no id: everything may have changed, e.g. a reset). */
  changed(id?: string): void {
    if (id === undefined) {
      this.resetPending = true;
      this.dirty.clear();
    } else {
      this.dirty.add(id);
    }
  }

  /**
   * Resolves once every change noted so far is on disk (fsync'd). Rejects when it could not be
   * written: the change must not be acknowledged.
   */
  durable(): Promise<void> {
    if (this.dirty.size === 0 && !this.resetPending) return this.inflight ?? Promise.resolve();
    this.queued ??= (async () => {
      await this.inflight?.catch(() => undefined);
      this.queued = undefined;
      const commit = this.commit();
      this.inflight = commit;
      try {
        await commit;
      } finally {
        if (this.inflight === commit) this.inflight = undefined;
      }
    })();
    return this.queued;
  }

  /** Writes everything and leaves a snapshot alone (no journal): at close. */
  async close(): Promise<void> {
    await this.durable().catch(() => undefined);
    await this.compacting?.catch(() => undefined);
    await this.compact(false);
  }

  private async commit(): Promise<void> {
    const line: JournalLine = { seq: ++this.seq, subnet_seq: this.state.subnetSeq };
    if (this.resetPending) {
      line.reset = true;
      line.put = [...this.state.order];
    } else {
      const put: ClusterRecord[] = [];
      const del: string[] = [];
      for (const id of this.dirty) {
        const c = this.state.clusters.get(id);
        if (c) put.push(c);
        else del.push(id);
      }
      if (put.length > 0) line.put = put;
      if (del.length > 0) line.del = del;
    }
    this.resetPending = false;
    this.dirty.clear();
    const text = `${JSON.stringify(line)}\n`;
    try {
      const journal = await this.openJournal();
      await journal.appendFile(text);
      await journal.datasync();
    } catch (e) {
      process.stderr.write(`cms-emulator: cannot write state journal of ${this.file}: ${(e as Error).message}\n`);
      throw new Error(`the change could not be saved to the state file: ${(e as Error).message}`);
    }
    this.journalBytes += Buffer.byteLength(text);
    if (!this.compacting && this.journalBytes >= Math.max(MIN_COMPACT_BYTES, this.snapshotBytes)) {
      this.compacting = this.compact().finally(() => (this.compacting = undefined));
      this.compacting.catch((e: Error) => process.stderr.write(`cms-emulator: cannot compact state file ${this.file}: ${e.message}\n`));
    }
  }

  private openJournal(): Promise<fs.FileHandle> {
    this.journal ??= fs.open(journalPath(this.file, this.generation), "a");
    return this.journal;
  }

  /**
   * A new snapshot: commits from now on go to the next journal generation; the snapshot (as of
   * the last commit of the previous one) is written in slices, fsync'd and renamed into place;
   * then older journals go. With `rotate` false (close), no new journal is started.
   */
  private async compact(rotate = true): Promise<void> {
    const seq = this.seq;
    const previous = this.journal;
    const nextGeneration = this.generation + 1;
    this.journal = undefined;
    this.generation = nextGeneration;
    this.journalBytes = 0;
    await (await previous?.catch(() => undefined))?.close();
    if (rotate) await this.openJournal();
    const dir = path.dirname(this.file);
    const tmp = path.join(dir, `.${path.basename(this.file)}.${process.pid}.${nextGeneration}.tmp`);
    const handle = await fs.open(tmp, "w");
    let bytes = 0;
    try {
      const head = JSON.stringify({
        version: STATE_FORMAT_VERSION,
        saved_at: new Date(this.state.now()).toISOString(),
        subnet_seq: this.state.subnetSeq,
        seq,
        journal: nextGeneration,
      });
      const write = async (s: string) => {
        bytes += Buffer.byteLength(s);
        await handle.write(s);
      };
      await write(`${head.slice(0, -1)},"clusters":[`);
      const records = [...this.state.order];
      for (let i = 0; i < records.length; i += SLICE) {
        const part = records.slice(i, i + SLICE).map((c) => JSON.stringify(c));
        await write((i === 0 ? "" : ",") + part.join(","));
      }
      await write("]}");
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, this.file);
    await syncDirectory(dir);
    this.snapshotBytes = bytes;
    for (const g of journalGenerations(this.file)) {
      if (g < nextGeneration) await fs.unlink(journalPath(this.file, g)).catch(() => undefined);
    }
  }
}

/** fsync a directory so a rename in it survives a crash (a no-op where directories cannot be opened). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch {
    // Not supported on this platform: the rename is as durable as it gets.
  } finally {
    await handle?.close();
  }
}
