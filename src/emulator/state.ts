/**
 * Everything the emulator knows, in one object that every operation receives.
 */
import type { Clock } from "../shared/clock";
import { settle, type ClusterRecord } from "./lifecycle";
import { TokenStore } from "./auth";
import { TokenRateWindows } from "./limits";
import { FaultRegistry } from "./faults";
import type { KubernetesBacking } from "./kubernetes/backing";
import type { Plan, Timings } from "./types";
import { omitUndefined } from "../shared/omit-undefined";

/** Operation durations in milliseconds. */
export interface DurationsMs {
  provision: number;
  scale: number;
  delete: number;
  upgrade: number;
}

/** Defaults of the standalone emulator, in seconds: close to a real service. */
export const DEFAULT_TIMINGS: Required<Timings> = {
  provisionSeconds: 60,
  scaleSeconds: 30,
  deleteSeconds: 20,
  upgradeSeconds: 45,
};

export class EmulatorState {
  /** Clusters by id. */
  readonly clusters = new Map<string, ClusterRecord>();
  /** Clusters in creation order (list order); records, not ids, so list pages need no lookups. */
  order: ClusterRecord[] = [];
  /** Ids of clusters being deleted, checked on every read so finished ones vanish. */
  readonly deleting = new Set<string>();
  readonly tokens = new TokenStore();
  readonly limiter: TokenRateWindows;
  readonly faults = new FaultRegistry();
  /** Requests per "METHOD /route/pattern". */
  readonly counts = new Map<string, number>();
  /** How many upcoming creates / PATCHes must end in `error`. */
  readonly failNext = { create: 0, update: 0 };
  durations: DurationsMs;
  /** Next node subnet. */
  subnetSeq = 0;
  /** Called after every change worth persisting: of cluster `id`, or of everything (no id). */
  onChange: (id?: string) => void = () => {};
  /** Real Kubernetes API servers behind the clusters (`--kubernetes`); absent without it. */
  kubernetes?: KubernetesBacking;
  /** Resolves once every change so far is durable (on disk with `--state`); rejects if it cannot be. */
  durable: () => Promise<void> = () => Promise.resolve();

  constructor(
    readonly clock: Pick<Clock, "now">,
    timings: Required<Timings>,
    planLimits: Partial<Record<Plan, number>> = {},
  ) {
    this.limiter = new TokenRateWindows(planLimits);
    this.durations = toDurations(timings);
  }

  now(): number {
    return this.clock.now();
  }

  /** Removes clusters whose deletion has completed. */
  purge(now: number): void {
    if (this.deleting.size === 0) return;
    let removed = false;
    for (const id of this.deleting) {
      const c = this.clusters.get(id);
      if (!c || settle(c, now)) {
        this.clusters.delete(id);
        this.deleting.delete(id);
        removed = true;
      }
    }
    if (removed) this.order = this.order.filter((c) => this.clusters.has(c.id));
  }

  /** The cluster, brought up to date, or undefined when unknown or gone. */
  get(id: string, now = this.now()): ClusterRecord | undefined {
    this.purge(now);
    const c = this.clusters.get(id);
    if (c) settle(c, now);
    return c;
  }

  /** Adds a new cluster at the end of the list order. */
  add(c: ClusterRecord): void {
    this.clusters.set(c.id, c);
    this.order.push(c);
  }

  /** Marks a cluster as being deleted (it vanishes when its deletion ends). */
  markDeleting(id: string): void {
    this.deleting.add(id);
  }

  /** Forgets all clusters. */
  clearClusters(): void {
    this.clusters.clear();
    this.order = [];
    this.deleting.clear();
  }

  /** Counts one request to `/v1`. */
  count(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  setTimings(t: Timings): void {
    const current = fromDurations(this.durations);
    this.durations = toDurations({ ...current, ...omitUndefined(t) });
  }

  timings(): Required<Timings> {
    return fromDurations(this.durations);
  }
}

function toDurations(t: Required<Timings>): DurationsMs {
  return {
    provision: Math.round(t.provisionSeconds * 1000),
    scale: Math.round(t.scaleSeconds * 1000),
    delete: Math.round(t.deleteSeconds * 1000),
    upgrade: Math.round(t.upgradeSeconds * 1000),
  };
}

function fromDurations(d: DurationsMs): Required<Timings> {
  return {
    provisionSeconds: d.provision / 1000,
    scaleSeconds: d.scale / 1000,
    deleteSeconds: d.delete / 1000,
    upgradeSeconds: d.upgrade / 1000,
  };
}

/** Throws a message naming the field unless every given duration is a number in [0, 86400]. */
export function checkTimings(t: unknown): Timings {
  if (typeof t !== "object" || t === null || Array.isArray(t)) throw new Error("timings must be an object");
  const allowed = ["provisionSeconds", "scaleSeconds", "deleteSeconds", "upgradeSeconds"];
  for (const [k, v] of Object.entries(t)) {
    if (!allowed.includes(k)) throw new Error(`${k} is not a known timing; allowed: ${allowed.join(", ")}`);
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 86400) {
      throw new Error(`${k} must be a number of seconds between 0 and 86400`);
    }
  }
  return t as Timings;
}
