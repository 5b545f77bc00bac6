/**
 * `--state FILE`: clusters, nodes and their pending transitions survive a restart.
 *
 * The file holds the same timestamped records the emulator works with, so progress made
 * while the emulator was down is applied on the first read after the restart. Writes are
 * coalesced (at most one every {@link SAVE_DELAY_MS}) and atomic: a temporary file in the
 * same directory is written, then renamed over the old one, so a crash never leaves half a file.
 */
import { promises as fs, readFileSync } from "node:fs";
import * as path from "node:path";
import type { ClusterRecord } from "./lifecycle";
import type { EmulatorState } from "./state";

export const STATE_FORMAT_VERSION = 1;
export const SAVE_DELAY_MS = 50;

/** Distinguishes the temporary files of several emulators in one process. */
let tmpSeq = 0;

interface StateFile {
  version: number;
  saved_at: string;
  subnet_seq: number;
  clusters: ClusterRecord[];
}

/**
 * Loads a state file into `state`. A missing file is an empty state; an unreadable or
 * malformed one throws (the file is left untouched, never overwritten by an empty state).
 */
export function loadState(file: string, state: EmulatorState): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new Error(`cannot read state file ${file}: ${(e as Error).message}`);
  }
  let data: StateFile;
  try {
    data = JSON.parse(text) as StateFile;
  } catch {
    // Not the parser's message: it can quote the file, which holds kubeconfig credentials.
    throw new Error(`state file ${file} is not valid JSON`);
  }
  if (!data || data.version !== STATE_FORMAT_VERSION || !Array.isArray(data.clusters)) {
    throw new Error(`state file ${file} is not an emulator state file of version ${STATE_FORMAT_VERSION}`);
  }
  state.clearClusters();
  for (const c of data.clusters) {
    // nextAt is Infinity when idle, which JSON cannot hold: force a settle on first read.
    c.nextAt = 0;
    state.add(c);
    if (c.op?.kind === "delete") state.markDeleting(c.id);
  }
  state.subnetSeq = Number(data.subnet_seq) || data.clusters.length;
}

/** Serialises the state, coalescing bursts of changes into one atomic write. */
export class Persister {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly state: EmulatorState,
  ) {}

  /** Notes a change; the file is written shortly after. */
  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed background write must not stop the server: report it and retry on the next change.
      this.flush().catch((e: Error) => {
        this.dirty = true;
        process.stderr.write(`cms-emulator: cannot write state file ${this.file}: ${e.message}\n`);
      });
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes the file now, changed or not (used at start to fail fast on an unwritable path). */
  writeNow(): Promise<void> {
    this.dirty = true;
    return this.flush();
  }

  /** Writes now if anything changed; resolves when the file is on disk. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Chain after the previous write whatever its outcome, so one failure does not block the rest.
    this.writing = this.writing.catch(() => undefined).then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const data: StateFile = {
        version: STATE_FORMAT_VERSION,
        saved_at: new Date(this.state.now()).toISOString(),
        subnet_seq: this.state.subnetSeq,
        clusters: this.state.order,
      };
      const tmp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.${process.pid}.${++tmpSeq}.tmp`);
      await fs.writeFile(tmp, JSON.stringify(data));
      await fs.rename(tmp, this.file);
    });
    return this.writing;
  }
}
