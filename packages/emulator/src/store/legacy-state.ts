/**
 * Reading the JSON state files of earlier releases, which the store converts once (database.ts):
 * - format 1: FILE, a snapshot `{version: 1, saved_at, subnet_seq, clusters: [records]}`;
 * - format 2: the same snapshot (`version: 2`, plus `seq` and `journal`, the generation that
 *   continues it) and `FILE.journal-<generation>`, one JSON line per commit
 *   `{seq, subnet_seq, put?: [records], del?: [ids], reset?}`.
 *
 * A journal line that does not parse is a write cut short: dropped and reported when it is the last
 * line (a crash). Elsewhere it is the mark of a full disk, after which format 2 appended the next
 * commit on the same line (`{"seq":4,"subnet_se{"seq":5,…`): that commit was acknowledged, so it is
 * read from where it starts; the cut one was not, and is dropped and reported.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { ClusterRecord } from "../model/records";
import { checkRecord } from "./record-check";

/** What a JSON state holds, checked. */
export interface LegacyState {
  /** In list (creation) order. */
  records: ClusterRecord[];
  subnetSeq: number;
  /** What was dropped, for the log. */
  notices: string[];
  /** The journals read, to be removed once the conversion is on disk. */
  journals: string[];
  /** FILE as read, to make sure nothing rewrote it meanwhile. */
  snapshot: { size: number; mtimeMs: number };
}

interface Snapshot {
  version: number;
  subnet_seq?: number;
  journal?: number;
  seq?: number;
  clusters: unknown[];
}

interface JournalLine {
  seq: number;
  subnet_seq?: number;
  put?: unknown[];
  del?: unknown[];
  reset?: boolean;
}

/** Journal generations beside `file`, ascending. */
function journalGenerations(file: string): number[] {
  const prefix = `${basename(file)}.journal-`;
  return readdirSync(dirname(file))
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => Number(n.slice(prefix.length)))
    .sort((a, b) => a - b);
}

function record(value: unknown, where: string): ClusterRecord {
  const checked = checkRecord(value);
  if (checked instanceof Error) {
    const id = (value as { id?: unknown } | null)?.id;
    throw new Error(`${where}${typeof id === "string" ? ` (cluster ${id.slice(0, 40)})` : ""} is damaged: ${checked.message}`);
  }
  return checked;
}

function parseLine(raw: string): JournalLine | undefined {
  try {
    const line = JSON.parse(raw) as JournalLine;
    return line && typeof line === "object" && !Array.isArray(line) ? line : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a JSON state (format 1 or 2) and its journals.
 *
 * @throws Error naming the file, the record and the field of what is damaged
 */
export function readLegacyState(file: string): LegacyState {
  const { size, mtimeMs } = statSync(file);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`cannot read state file ${file} (${size} bytes): ${(e as Error).message}`);
  }
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(text) as Snapshot;
  } catch {
    // Not the parser's message: it can quote the file, which holds kubeconfig credentials.
    throw new Error(`state file ${file} is not valid JSON`);
  }
  if (!snapshot || (snapshot.version !== 1 && snapshot.version !== 2) || !Array.isArray(snapshot.clusters)) {
    throw new Error(`state file ${file} is not an emulator state file of version 1 or 2`);
  }
  const records = new Map<string, ClusterRecord>();
  snapshot.clusters.forEach((c, i) => {
    const r = record(c, `state file ${file}: record clusters[${i}]`);
    records.set(r.id, r);
  });
  let subnetSeq = Number(snapshot.subnet_seq) || 0;
  let seq = snapshot.seq ?? 0;
  const notices: string[] = [];
  const generations = journalGenerations(file).filter((g) => g >= (snapshot.journal ?? 0));
  const journals = generations.map((g) => `${file}.journal-${g}`);
  for (const journal of journals) {
    const lines = readFileSync(journal, "utf8").split("\n");
    lines.forEach((raw, i) => {
      if (raw === "") return;
      let line = parseLine(raw);
      if (!line) {
        const resumed = raw.lastIndexOf('{"seq":');
        line = resumed > 0 ? parseLine(raw.slice(resumed)) : undefined;
        const cut = line ? resumed : raw.length;
        if (!line && i !== lines.length - 1) throw new Error(`state journal ${journal} is damaged at line ${i + 1}`);
        notices.push(`state journal ${journal}, line ${i + 1}: a write cut short (${cut} bytes, never acknowledged) is dropped`);
        if (!line) return;
      }
      const where = `state journal ${journal}, line ${i + 1}`;
      if (typeof line.seq !== "number") throw new Error(`${where} is damaged: field seq must be a number`);
      if (line.put !== undefined && !Array.isArray(line.put)) throw new Error(`${where} is damaged: field put must be an array`);
      if (line.del !== undefined && !(Array.isArray(line.del) && line.del.every((id) => typeof id === "string"))) {
        throw new Error(`${where} is damaged: field del must be an array of cluster ids`);
      }
      if (line.seq <= seq) return;
      seq = line.seq;
      if (line.reset) records.clear();
      for (const id of (line.del ?? []) as string[]) records.delete(id);
      (line.put ?? []).forEach((c, k) => {
        const r = record(c, `${where}: record put[${k}]`);
        records.delete(r.id); // re-inserted: a reset then put keeps creation order by re-adding
        records.set(r.id, r);
      });
      subnetSeq = Math.max(subnetSeq, Number(line.subnet_seq) || 0);
    });
  }
  return {
    records: [...records.values()].sort(byCreation),
    subnetSeq: Math.max(subnetSeq, records.size),
    notices,
    journals,
    snapshot: { size, mtimeMs },
  };
}

/** List order is creation order (ids are random): created_at, then the subnet, which only grows. */
function byCreation(a: ClusterRecord, b: ClusterRecord): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.subnet - b.subnet;
}
