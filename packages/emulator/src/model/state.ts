/**
 * Everything the emulator knows, in one object that every operation receives. Its clusters,
 * counters and pending failures are its own: operations read and change them through its methods,
 * so that the bookkeeping that must move together (capacity, list order, durability) does.
 */
import { type Clock, omitUndefined } from "@pulumi-cms/contract";
import { Capacity, type CapacityLimits, sizeOf } from "./capacity";
import { provisionCluster, settle } from "./lifecycle";
import { touch, type ClusterRecord, type CreateInput, type KubeconfigCredential } from "./records";
import { TokenStore } from "../http/auth";
import { TokenRateWindows } from "../http/limits";
import { FaultRegistry } from "../http/faults";
import type { Plan, Timings } from "../types";

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

/** Where changes are made durable (`--state`: store/database.ts); without one, memory only. */
export interface Durability {
  /** Resolves once `change` is on disk; rejects (503 `storage_unavailable`) when nothing of it could be written. */
  write(change: { put?: ClusterRecord[]; reset?: boolean }): Promise<void>;
  /** Cluster `id` was changed in place by background work, or is gone: written with the next commit. */
  later(id: string): void;
}

/**
 * Real Kubernetes API servers behind the clusters' kubeconfigs (`--kubernetes`:
 * kubernetes/backing.ts). The state and the operations call it; it is loaded only with the option.
 */
export interface ClusterBacking {
  /** The Kubernetes version every backed cluster runs. */
  readonly version: string;
  /** Gives a new (or restored) cluster its API server; sets its endpoint before it is written. */
  attach(c: ClusterRecord): Promise<void>;
  /** Resolves once `c`'s kubeconfig works; rejects when its API server could not start. */
  ready(c: ClusterRecord): Promise<void>;
  /** A new credential for `c`'s kubeconfig, handed to `record`; then the previous one stops working. */
  rotate(c: ClusterRecord, record: (credential: KubeconfigCredential) => Promise<unknown>): Promise<void>;
  /** Stops every API server. */
  close(): Promise<void>;
}

/** The key of {@link EmulatorState.exclusive} that waits for every change. */
export const EVERY_CLUSTER = Symbol("every cluster");

export class EmulatorState {
  readonly tokens = new TokenStore();
  readonly limiter: TokenRateWindows;
  readonly faults = new FaultRegistry();
  /** Clusters by id. */
  private readonly clusters = new Map<string, ClusterRecord>();
  /** Clusters in creation order (list order); records, not ids, so list pages need no lookups. */
  private order: ClusterRecord[] = [];
  /** Ids of clusters being deleted, checked on every read so finished ones vanish. */
  private readonly deleting = new Set<string>();
  /** Requests per "METHOD /route/pattern". */
  private readonly counts = new Map<string, number>();
  /** How many upcoming creates / PATCHes must end in `error`. */
  private readonly failures = { create: 0, update: 0 };
  private durationsMs: DurationsMs;
  /** Next node subnet. */
  private subnetSeq = 0;
  /** Real Kubernetes API servers behind the clusters (`--kubernetes`); absent without it. */
  private backing?: ClusterBacking;
  /** The state file (`--state`); absent: memory only. */
  private store?: Durability;
  /** Clusters and nodes held, against the caps. */
  private readonly capacity: Capacity;
  /** Clusters being created (being written, not yet visible), and when that ends. */
  private readonly creating = new Map<string, Promise<void>>();
  /** The end of the last change of each cluster under way. */
  private readonly changing = new Map<string, Promise<void>>();
  /** Changes of no existing cluster (creates) under way. */
  private readonly creates = new Set<Promise<void>>();
  /** The end of the last change of every cluster (a reset). */
  private barrier: Promise<void> = Promise.resolve();

  constructor(
    readonly clock: Pick<Clock, "now">,
    timings: Required<Timings>,
    planLimits: Partial<Record<Plan, number>> = {},
    capacity?: CapacityLimits,
  ) {
    this.limiter = new TokenRateWindows(planLimits);
    this.durationsMs = toDurations(timings);
    this.capacity = new Capacity(capacity);
  }

  now(): number {
    return this.clock.now();
  }

  /** Operation durations now (the control API changes them). */
  get durations(): Readonly<DurationsMs> {
    return this.durationsMs;
  }

  /** Real Kubernetes API servers behind the clusters (`--kubernetes`); absent without it. */
  get kubernetes(): ClusterBacking | undefined {
    return this.backing;
  }

  /** Puts real Kubernetes API servers behind the clusters (`--kubernetes`). */
  useKubernetes(backing: ClusterBacking): void {
    this.backing = backing;
  }

  /** Makes changes durable in `store` (`--state`), from now on. */
  useStore(store: Durability): void {
    this.store = store;
  }

  /** Removes clusters whose deletion has completed (and, with `--state`, their records). */
  purge(now: number): void {
    if (this.deleting.size === 0) return;
    let removed = false;
    for (const id of this.deleting) {
      const c = this.clusters.get(id);
      if (!c || settle(c, now)) {
        if (c) this.capacity.release(1, sizeOf(c));
        this.clusters.delete(id);
        this.deleting.delete(id);
        this.store?.later(id);
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

  /** The cluster's record as held, neither settled nor purged (background work, the store). */
  held(id: string): ClusterRecord | undefined {
    return this.clusters.get(id);
  }

  /** Every cluster held, in list order, neither settled nor purged. */
  inOrder(): readonly ClusterRecord[] {
    return this.order;
  }

  /** How many clusters and nodes are held. */
  size(): { clusters: number; nodes: number } {
    let nodes = 0;
    for (const c of this.clusters.values()) nodes += c.nodes.length;
    return { clusters: this.clusters.size, nodes };
  }

  /** Cluster `id` is being created: being written, not yet visible. */
  isCreating(id: string): boolean {
    return this.creating.has(id);
  }

  /** Resolves once the create of cluster `id` under way has ended; undefined when none is. */
  created(id: string): Promise<void> | undefined {
    return this.creating.get(id);
  }

  /** Adds a new cluster at the end of the list order (its size is counted by whoever made it). */
  private add(c: ClusterRecord): void {
    this.clusters.set(c.id, c);
    this.order.push(c);
  }

  /**
   * A new cluster made of `input`, in `provisioning`: added once durable (with `--state`) and,
   * with `--kubernetes`, once its API server has its place. Uses up one `failNext("create")`,
   * given back, with the capacity, when the create fails. Run it inside {@link exclusive}
   * (`undefined`).
   */
  async create(input: CreateInput): Promise<ClusterRecord> {
    const size = input.control_planes + input.workers;
    this.capacity.reserve(1, size);
    const fail = this.failures.create > 0;
    if (fail) this.failures.create -= 1;
    const c = provisionCluster(input, this.now(), this.durationsMs.provision, fail, this.subnetSeq++);
    let created = () => {};
    this.creating.set(c.id, new Promise<void>((resolve) => (created = resolve)));
    try {
      await this.backing?.attach(c);
      await this.save([c]);
    } catch (e) {
      this.capacity.release(1, size);
      if (fail) this.failures.create += 1;
      throw e;
    } finally {
      this.creating.delete(c.id);
      created();
    }
    this.add(c);
    return c;
  }

  /** Replaces the clusters with those of a state file, in list order. */
  load(records: ClusterRecord[], subnetSeq: number): void {
    this.clearClusters();
    for (const c of records) {
      this.add(c);
      this.capacity.hold(1, sizeOf(c));
      if (c.op?.kind === "delete") this.markDeleting(c.id);
    }
    this.subnetSeq = Math.max(this.subnetSeq, subnetSeq, records.length);
  }

  /** Marks a cluster as being deleted (it vanishes when its deletion ends). */
  markDeleting(id: string): void {
    this.deleting.add(id);
  }

  /** Forgets all clusters. */
  private clearClusters(): void {
    this.clusters.clear();
    this.order = [];
    this.deleting.clear();
    this.capacity.release(this.capacity.clusters, this.capacity.nodes);
  }

  /**
   * Back to an empty emulator, durably first (with `--state`): no clusters, faults, request
   * counts, rate-limit windows or pending failures; tokens and timings stay. Run it inside
   * {@link exclusive} ({@link EVERY_CLUSTER}).
   */
  async reset(): Promise<void> {
    await this.store?.write({ reset: true });
    this.clearClusters();
    this.faults.clear();
    this.counts.clear();
    this.limiter.reset();
    this.failures.create = 0;
    this.failures.update = 0;
  }

  /** The next create or PATCH that changes something (`operation`) ends in `error`. */
  failNext(operation: "create" | "update"): void {
    this.failures[operation] += 1;
  }

  /**
   * Runs `fn` once the changes of cluster `id` started before it have ended, so that a change starts
   * from what the previous one wrote and applied (two PATCHes of a running cluster: the second sees
   * it scaling). `undefined`: a change of no existing cluster (a create); {@link EVERY_CLUSTER}: after
   * every change under way, and before any that starts later (a reset).
   */
  exclusive<T>(id: string | undefined | typeof EVERY_CLUSTER, fn: () => Promise<T>): Promise<T> {
    const before =
      id === EVERY_CLUSTER
        ? Promise.all([this.barrier, ...this.changing.values(), ...this.creates])
        : id === undefined
          ? this.barrier
          : Promise.all([this.barrier, this.changing.get(id)]);
    const run = before.then(fn);
    const ended = run.then(
      () => undefined,
      () => undefined,
    );
    if (id === EVERY_CLUSTER) this.barrier = ended;
    else if (id === undefined) {
      this.creates.add(ended);
      void ended.then(() => this.creates.delete(ended));
    } else {
      this.changing.set(id, ended);
      void ended.then(() => {
        if (this.changing.get(id) === ended) this.changing.delete(id);
      });
    }
    return run;
  }

  /** Makes new or changed clusters durable (with `--state`); rejects, writing nothing, when it cannot. */
  async save(records: ClusterRecord[]): Promise<void> {
    await this.store?.write({ put: records });
  }

  /**
   * Changes a cluster: `change` edits a copy (and returns false when there is nothing to change);
   * the copy is saved, then takes the cluster's place. Run it inside {@link exclusive} for the cluster.
   *
   * @returns whether anything changed
   */
  async update(live: ClusterRecord, change: (draft: ClusterRecord) => boolean): Promise<boolean> {
    const draft = structuredClone(live);
    if (!change(draft)) return false;
    const grows = sizeOf(draft) - sizeOf(live);
    if (grows > 0) this.capacity.reserve(0, grows);
    try {
      await this.save([draft]);
    } catch (e) {
      if (grows > 0) this.capacity.release(0, grows);
      throw e;
    }
    if (grows < 0) this.capacity.release(0, -grows);
    const target = live as unknown as Record<string, unknown>;
    for (const key of Object.keys(target)) if (!(key in draft)) delete target[key];
    Object.assign(live, draft);
    touch(live);
    return true;
  }

  /**
   * {@link update} for a change that a pending `failNext("update")` makes fail: `change` is told
   * whether it must; one is used up when it changes something, and given back when the change
   * cannot be saved.
   */
  async updateOrFail(live: ClusterRecord, change: (draft: ClusterRecord, fail: boolean) => boolean): Promise<boolean> {
    const fail = this.failures.update > 0;
    let failing = false;
    try {
      return await this.update(live, (draft) => {
        const changed = change(draft, fail);
        failing = changed && fail;
        if (failing) this.failures.update -= 1;
        return changed;
      });
    } catch (e) {
      if (failing) this.failures.update += 1;
      throw e;
    }
  }

  /** Cluster `id` was changed in place by background work (`--kubernetes`): written with the next commit. */
  changedInPlace(id: string): void {
    this.store?.later(id);
  }

  /** Counts one request to `/v1`. */
  count(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Requests per "METHOD /route/pattern" since the last reset. */
  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  resetRequestCounts(): void {
    this.counts.clear();
  }

  setTimings(t: Timings): void {
    const current = fromDurations(this.durationsMs);
    this.durationsMs = toDurations({ ...current, ...omitUndefined(t) });
  }

  timings(): Required<Timings> {
    return fromDurations(this.durationsMs);
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
