/**
 * Shared status polling: when several clusters of one endpoint + token are being waited on in
 * this process at the same time (a stack creating, scaling or deleting many clusters: the
 * dynamic-provider host runs all of a stack's operations in one process), one
 * `GET /v1/clusters?per_page=100` answers for all of them instead of one GET each.
 *
 * Why: every poll is a request against the plan's budget (100 a minute on Community). Fifty
 * clusters polled one by one spend fifty requests per round; listed, they spend one (or one
 * per 100 clusters in the account). The per-cluster schedule (`schedule.ts`) still decides when
 * each cluster needs a fresh status; a round serves every cluster waiting at that moment, due
 * or not, so the waits fall into step and later rounds serve them all at once.
 *
 * Rules:
 * - One cluster waiting, or an account so large that listing it takes more pages than there
 *   are clusters waiting: plain `GET /v1/clusters/{id}`, exactly as without sharing.
 * - A cluster missing from the listing is gone only when it was listed before and the listing
 *   fits in one page (one response is one consistent snapshot). Otherwise (never listed, e.g. a
 *   token whose scope hides it from the list; or several pages, between which clusters may shift)
 *   it gets its own GET, which answers 404 or the cluster.
 * - An error of the listing is given to every cluster of the round, as a GET's error would be.
 * - A round lists through `listings.ts`: it joins a listing of the connection already in flight
 *   (a refresh read's), never one sent before a write of this process on the connection.
 * - Operations started together share their first round. Each operation asks for its first status as soon as the
 *   service has answered its POST, PATCH or DELETE (against a service that finishes at once, that
 *   round already sees it done). That poll waits while a request of the connection starting an
 *   operation is unanswered ({@link SharedPoller.sending}), and then until the time the poller's
 *   {@link FirstRoundPolicy} gives: the host that runs the operations knows its engine, and so
 *   when more operations may join the round (`hosts/engine-waves.ts`). Without a policy (tools,
 *   tests) the first round goes at once. At the latest a first poll comes at the waiter's own
 *   delay (the schedule's first poll).
 * - A first poll after a DELETE, as long as nothing has shown how the service deletes, is a GET of
 *   its own, at once: it answers 404 from a service that deletes at once, which no listing could
 *   prove. After one that showed that (or listings that showed none of the clusters on their
 *   first poll after a DELETE), such polls stay GETs of their own, at once; after one that found
 *   its cluster still there (a service that takes its time), they share listings as above.
 */
import { clusterPages } from "../../client/pagination";
import { isNotFound, NotFoundError } from "../../client/errors";
import { type ApiCluster, type ApiClusterList, type Clock, systemClock } from "@pulumi-cms/contract";
import type { CallOptions } from "../../client/budget";
import { type InFlightListings, sharedLister } from "./listings";

/** What a poller knows of the first polls waiting to be served together, for its {@link FirstRoundPolicy}. */
export interface FirstRound {
  /** Now, on the poller's clock. */
  now: number;
  /** Clusters whose first poll is waiting. */
  waiting: number;
  /** Most clusters on their first poll one round of this poller has served so far. */
  largestServed: number;
  /** When a request starting an operation was last sent or answered, a first poll asked for, or the poller touched. */
  lastActivityAt: number;
}

/** When the first polls waiting may go, as one round: `now` at once, later to let more join. */
export interface FirstRoundPolicy {
  firstRoundAt(round: FirstRound): number;
}

/** Every first round goes at once. */
export const AT_ONCE: FirstRoundPolicy = Object.freeze({ firstRoundAt: ({ now }: FirstRound) => now });

/** Something happened that a first round may wait for (an operation announced or started): every poller hears it. */
export function touchSharedPollers(pollers: Map<string, SharedPoller>): void {
  for (const poller of pollers.values()) poller.touch();
}

/** What the shared poller needs of a client: `CmsClient` has all of it. */
export interface SharedPollClient {
  /** Same value for clients of the same endpoint and token (the token is not in it). */
  readonly identity: string;
  getCluster(id: string, within?: CallOptions): Promise<ApiCluster>;
  listClusters(query: { page?: number; perPage?: number }, within?: CallOptions): Promise<ApiClusterList>;
}

/** A wait's deadline on the poller's clock, and how messages name it (`create timeout`). */
export interface WaitDeadline {
  at: number;
  name: string;
}

/** One observed status. */
export interface Observation {
  cluster: ApiCluster;
  /** True when it came from a listing that served several clusters (callers then skip extras). */
  shared: boolean;
}

interface Waiting {
  id: string;
  dueAt: number;
  /** The early poll of a wait: due with the first round (see the module comment), before `dueAt`. */
  first: boolean;
  /** For a wait until the cluster is gone (after its DELETE). */
  gone: boolean;
  /** No request made for it may wait past this. */
  deadline?: WaitDeadline;
  resolve(o: Observation): void;
  reject(e: unknown): void;
}

/** Polls the clusters of one endpoint + token; see the module comment. */
export class SharedPoller {
  private waiting: Waiting[] = [];
  /** Requests starting an operation, sent and not answered yet (see {@link sending}). */
  private unanswered = 0;
  /** Last request sent or answered, operation started or first poll asked for on this connection. */
  private lastActivityAt = Number.NEGATIVE_INFINITY;
  /** Aborts the pending sleep of the next round when the round is set again. */
  private timer: AbortController | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private busy = false;
  /** Pages the last listing took. */
  private pages = 1;
  /** Waited-on clusters seen in a listing (so their absence later means they are gone). */
  private readonly listed = new Set<string>();
  /** Most clusters on their first poll served by one round so far. */
  private largestServed = 0;
  /** The last listing or GET showed none of the clusters on their first poll after a DELETE that it was asked about. */
  private firstPollsMissed = false;
  /** Some first poll after a DELETE has been answered: {@link firstPollsMissed} is evidence, not a default. */
  private deletesSeen = false;

  constructor(
    private readonly client: SharedPollClient,
    readonly clock: Clock = systemClock,
    /** When the first polls waiting go as one round. */
    readonly policy: FirstRoundPolicy = AT_ONCE,
    /** The listings in flight its rounds may join (`listings.ts`). */
    private readonly listings: InFlightListings = new Map(),
  ) {}

  private now(): number {
    return this.clock.now();
  }

  /**
   * The status of cluster `id`, observed `delayMs` from now, or earlier when a round for other
   * clusters comes first. A `first` poll comes earlier still, with the first round (see the module
   * comment). Rejects as `getCluster` would (a `NotFoundError` when it is gone).
   */
  observe(id: string, delayMs: number, kind: { first?: boolean; gone?: boolean; deadline?: WaitDeadline } = {}): Promise<Observation> {
    const first = kind.first === true;
    return new Promise<Observation>((resolve, reject) => {
      const dueAt = this.now() + Math.max(0, delayMs);
      this.waiting.push({ id, dueAt, first, gone: kind.gone === true, deadline: kind.deadline, resolve, reject });
      if (first) this.touch();
      else this.arm();
    });
  }

  /**
   * Send a request that starts an operation of this connection (POST, PATCH, DELETE): first polls
   * wait for its answer, so that the operations the engine started together share one first
   * round. The caller's own first poll, asked for once the answer is in, joins that round: the
   * round is a timer task, and the caller asks within the same turn of the event loop.
   */
  async sending<T>(request: () => Promise<T>): Promise<T> {
    this.unanswered += 1;
    this.touch();
    try {
      return await request();
    } finally {
      this.unanswered -= 1;
      this.touch();
    }
  }

  /** Something happened on the connection that a first round may wait for (see {@link FirstRound.lastActivityAt}). */
  touch(): void {
    this.lastActivityAt = this.now();
    this.arm();
  }

  /** Clusters waiting for the next round (diagnostics and tests). */
  get pending(): number {
    return this.waiting.length;
  }

  private arm(): void {
    if (this.busy || this.waiting.length === 0) return;
    const now = this.now();
    const firstAt = this.firstRoundAt(now);
    let dueAt = Number.POSITIVE_INFINITY;
    for (const w of this.waiting) dueAt = Math.min(dueAt, w.first ? Math.min(w.dueAt, firstAt) : w.dueAt);
    if (this.timer !== undefined) {
      // Activity can move a first round later: the timer is set again each time.
      if (dueAt === this.timerAt) return;
      this.timer.abort();
    }
    this.timerAt = dueAt;
    const timer = new AbortController();
    this.timer = timer;
    void this.clock.sleep(Math.max(0, dueAt - now), timer.signal).then(() => {
      if (this.timer !== timer) return;
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.round();
    });
  }

  /** When the first polls waiting may go (see the module comment). */
  private firstRoundAt(now: number): number {
    const firsts = this.waiting.filter((w) => w.first);
    // Each gets its own GET anyway: nothing to share, so nothing to wait for.
    if (firsts.every((w) => this.direct(w))) return now;
    if (this.unanswered > 0) return Number.POSITIVE_INFINITY;
    const waiting = new Set(firsts.map((w) => w.id)).size;
    return this.policy.firstRoundAt({ now, waiting, largestServed: this.largestServed, lastActivityAt: this.lastActivityAt });
  }

  /**
   * A first poll, after its DELETE, of a cluster never listed, unless such polls have found their
   * clusters still there (a service that takes its time): a listing could not answer it, its own
   * GET does.
   */
  private direct(w: Waiting): boolean {
    return (this.firstPollsMissed || !this.deletesSeen) && w.first && w.gone && !this.listed.has(w.id);
  }

  /** What first polls after a DELETE showed: `missed`, none of their clusters was there any more. */
  private sawDeletes(missed: boolean): void {
    this.firstPollsMissed = missed;
    this.deletesSeen = true;
  }

  private async round(): Promise<void> {
    this.busy = true;
    const batch = this.waiting;
    this.waiting = [];
    this.largestServed = Math.max(this.largestServed, new Set(batch.filter((w) => w.first).map((w) => w.id)).size);
    try {
      await this.serve(batch);
    } catch (e) {
      // serve settles every waiter itself; this is only a backstop.
      for (const w of batch) w.reject(e);
    } finally {
      this.busy = false;
      this.arm();
    }
  }

  private async serve(batch: Waiting[]): Promise<void> {
    const ids = [...new Set(batch.map((w) => w.id))];
    // The round's requests end by the earliest deadline of its waits: one of them may be held no
    // longer, and the others, told so by a DeadlineError, poll again in a round of their own.
    const earliest = batch.reduce<WaitDeadline | undefined>(
      (a, w) => (w.deadline && (!a || w.deadline.at < a.at) ? w.deadline : a),
      undefined,
    );
    const within = () => (earliest ? { deadlineInMs: earliest.at - this.now(), deadlineName: earliest.name } : undefined);
    const answer = (id: string, outcome: { ok: Observation } | { error: unknown }): void => {
      for (const w of batch) {
        if (w.id !== id) continue;
        if ("ok" in outcome) w.resolve(outcome.ok);
        else w.reject(outcome.error);
      }
    };
    const single = async (id: string): Promise<void> => {
      try {
        answer(id, { ok: { cluster: await this.client.getCluster(id, within()), shared: false } });
      } catch (error) {
        answer(id, { error });
      }
    };
    // A direct first poll after a DELETE also tells how this service deletes (see `direct`).
    const learn = async (id: string): Promise<void> => {
      try {
        const cluster = await this.client.getCluster(id, within());
        this.sawDeletes(false);
        answer(id, { ok: { cluster, shared: false } });
      } catch (error) {
        if (isNotFound(error)) this.sawDeletes(true);
        answer(id, { error });
      }
    };
    // A first poll after a DELETE of a cluster never listed can only be answered by a listing that
    // still shows it; a GET of its own answers it in any case (see `direct`).
    const unseen = new Set(ids.filter((id) => !this.listed.has(id) && batch.some((w) => w.id === id && w.first && w.gone)));
    let direct = ids.filter((id) => batch.some((w) => w.id === id && this.direct(w)));
    let probed: string | undefined;
    if (!this.deletesSeen && direct.length > 0) {
      // Nothing known yet: one GET finds out, and then the others go its way. (The round is busy
      // meanwhile, so first polls that come in the meantime wait for it too.)
      probed = direct[0];
      await learn(probed);
      direct = direct.slice(1).filter((id) => batch.some((w) => w.id === id && this.direct(w)));
    }
    const listable = ids.filter((id) => id !== probed && !direct.includes(id));
    if (listable.length <= 1 || this.pages > listable.length) {
      await Promise.all([...direct.map(learn), ...listable.map(single)]);
      return;
    }
    let listing: { items: Map<string, ApiCluster>; complete: boolean };
    try {
      listing = await this.listAll(within());
    } catch (error) {
      for (const id of listable) answer(id, { error });
      await Promise.all(direct.map(learn));
      return;
    }
    const shown = listable.filter((id) => unseen.has(id));
    if (shown.length > 0) this.sawDeletes(shown.every((id) => !listing.items.has(id)));
    const alone: string[] = [];
    for (const id of listable) {
      const cluster = listing.items.get(id);
      if (cluster) {
        this.listed.add(id);
        answer(id, { ok: { cluster, shared: true } });
      } else if (listing.complete && this.listed.has(id)) {
        this.listed.delete(id);
        answer(id, { error: goneError(id) });
      } else {
        alone.push(id);
      }
    }
    await Promise.all([...direct.map(learn), ...alone.map(single)]);
  }

  /** Every cluster of the account, page by page; `complete` when one page held them all. */
  private async listAll(within: CallOptions | undefined): Promise<{ items: Map<string, ApiCluster>; complete: boolean }> {
    const items = new Map<string, ApiCluster>();
    let pages = 0;
    for await (const list of clusterPages(sharedLister(this.listings, this.client, within))) {
      pages += 1;
      for (const c of list.items) items.set(c.id, c);
    }
    this.pages = pages;
    return { items, complete: pages === 1 };
  }
}

function goneError(id: string): NotFoundError {
  const path = `/v1/clusters/${id}`;
  return new NotFoundError({
    status: 404,
    code: "not_found",
    message: `Cluster ${id} not found: it is no longer listed`,
    method: "GET",
    path,
  });
}

/** True for a client that can list and that names its connection (`CmsClient`; not a test double). */
export function isSharedPollClient(client: unknown): client is SharedPollClient {
  const c = client as Partial<SharedPollClient> | null;
  return (
    !!c && typeof c.identity === "string" && c.identity !== "" && typeof c.getCluster === "function" && typeof c.listClusters === "function"
  );
}

/** The pollers of a process by connection, and its listings in flight (its runtime's: `../runtime.ts`). */
export interface PollerRegistry {
  readonly pollers: Map<string, SharedPoller>;
  readonly listings: InFlightListings;
}

/**
 * The registry's poller of this client's endpoint + token, on `clock` with `policy` (a poller made
 * on another clock or policy serves only the waits it has); undefined when the client cannot list
 * (a test double) and polling stays per cluster.
 */
export function sharedPollerFor(
  registry: PollerRegistry,
  clock: Clock,
  client: unknown,
  policy: FirstRoundPolicy = AT_ONCE,
): SharedPoller | undefined {
  if (!isSharedPollClient(client)) return undefined;
  let poller = registry.pollers.get(client.identity);
  if (!poller || poller.clock !== clock || poller.policy !== policy) {
    poller = new SharedPoller(client, clock, policy, registry.listings);
    registry.pollers.set(client.identity, poller);
  }
  return poller;
}
