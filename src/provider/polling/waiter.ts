/**
 * Waiting for a cluster to reach a state: observes it on the adaptive schedule of `schedule.ts`
 * (through the shared poller of `shared-poll.ts`, one listing for every cluster of the connection
 * waited on together, or one GET /v1/clusters/{id} per poll), reads the status (provisioning,
 * scaling, upgrading and deleting mean "not yet"; error means stop), honours the operation's
 * deadline and reports progress.
 *
 * A wait that follows the request starting its operation (an `early` wait) makes its first poll
 * as soon as it may instead of at the schedule's first instant (1 s): a service can be done by the
 * time it answers, and then the operation ends without idling. Alone, that poll comes at once;
 * shared, once every request of its wave is answered, so one listing serves the wave. The next
 * poll is the schedule's second (3 s), so the wait costs no more calls than without it (see
 * `schedule.ts` for the one change it notices later).
 */
import type { CallOptions } from "../../client/budget";
import { type ApiCluster, type ApiNodeList, type Clock, systemClock } from "@pulumi-cms/contract";
import { CmsError } from "../../shared/errors/cms-error";
import { formatDuration } from "../../shared/domain/durations";
import { DeadlineError, isNotFound, isTransient } from "../../client/errors";
import { safeMessage } from "../../connection";
import { goneLine, progressLine } from "../progress/lines";
import { DEFAULT_POLL_SCHEDULE, delayAfterEarlyPoll, nextPollDelay, type PollSchedule } from "./schedule";
import { type FirstRoundPolicy, type PollerRegistry, type SharedPoller, sharedPollerFor } from "./shared-poll";

/** What the wait is for. */
export type WaitTarget = "running" | "gone";

/** What one observed status means for a wait. */
export type StatusVerdict = "done" | "wait" | "failed";

/**
 * Judge an observed cluster status for a wait. Pure.
 *
 * For `running`: `running` is done; `error` failed; `deleting` failed too (a cluster being
 * deleted never becomes running); anything else, including statuses this version does not know,
 * is "not yet". For `gone`: only a 404 is done (handled by the caller); `error` failed; anything
 * else is "not yet".
 */
export function judgeStatus(status: string, target: WaitTarget): StatusVerdict {
  if (status === "error") return "failed";
  if (target === "running") {
    if (status === "running") return "done";
    if (status === "deleting") return "failed";
    return "wait";
  }
  return "wait";
}

/** Shortest gap between two node lists made for progress lines. */
export const MIN_NODE_LIST_GAP_MS = 5_000;
/** Node lists for progress lines are at least this fraction of the time waited apart. */
export const NODE_LIST_GAP_FRACTION = 0.3;

/**
 * Whether a poll should also list the nodes for its progress line. Pure.
 *
 * Progress is a courtesy and must not double the calls a wait spends: the first poll that does
 * not reach the target lists the nodes, later ones only once max(5 s, 30 % of the time waited)
 * has passed since the last list. The gaps grow with the wait like the poll schedule's, so a
 * 10-minute provisioning spends about 12 node lists rather than one per poll; the lines in
 * between repeat the last count seen.
 */
export function nodeListDue(lastListedAt: number | undefined, now: number, startedAt: number): boolean {
  if (lastListedAt === undefined) return true;
  const gap = Math.max(MIN_NODE_LIST_GAP_MS, NODE_LIST_GAP_FRACTION * (now - startedAt));
  return now - lastListedAt >= gap;
}

/** How messages name a wait's limit when the operation's is not given. */
const WAIT_TIMEOUT = "wait's timeout";

/** Why a wait ended without reaching its target. */
export type WaitFailure = "failed" | "timeout" | "gone" | "cancelled";

/** A wait that did not reach its target; `cluster` is the last state seen. */
export class WaitError extends CmsError {
  /** `wait_failed`, `wait_timeout`, `wait_gone` or `wait_cancelled`, after {@link WaitError.reason}. */
  readonly code: `wait_${WaitFailure}`;
  /** failed (status error / being deleted), timeout, gone (404 while waiting for running), or cancelled (see {@link WaitOptions.cancelled}). */
  readonly reason: WaitFailure;
  /** Last state seen, if any. */
  readonly cluster?: ApiCluster;
  constructor(message: string, reason: WaitFailure, cluster?: ApiCluster) {
    super(message);
    this.name = "WaitError";
    this.reason = reason;
    this.code = `wait_${reason}`;
    this.cluster = cluster;
  }
}

/** The two client calls the waiter makes. */
export interface WaiterClient {
  /** GET /v1/clusters/{id}, none of whose waits passes `within`. */
  getCluster(id: string, within?: CallOptions): Promise<ApiCluster>;
  /** GET /v1/clusters/{id}/nodes, likewise. */
  listNodes(clusterId: string, within?: CallOptions): Promise<ApiNodeList>;
}

/** Options of {@link waitForCluster}. */
export interface WaitOptions {
  /** Client to poll with. */
  client: WaiterClient;
  /** Cluster id. */
  id: string;
  /** Wait for `running`, or for the cluster to be gone (404). */
  target: WaitTarget;
  /** Give up this long after `startedAt`: no poll waits past it either. */
  timeoutMs: number;
  /** How messages name that limit (`create timeout`); default `wait's timeout`. */
  deadlineName?: string;
  /** Start of the operation (e.g. when the POST was sent); defaults to now. */
  startedAt?: number;
  /**
   * Receives a progress line per poll. When set, nodes are also listed, on the polls
   * {@link nodeListDue} picks, to say how many are ready.
   */
  onProgress?: (line: string, cluster: ApiCluster | undefined, nodes: ApiNodeList | undefined) => void;
  /** List nodes for the progress line (default true); a deletion reports its status only. */
  countNodes?: boolean;
  /** Secrets to keep out of error messages. */
  secrets?: string[];
  /** Poll schedule; {@link DEFAULT_POLL_SCHEDULE} by default. */
  schedule?: PollSchedule;
  /** Time source; the wall clock by default. */
  clock?: Clock;
  /**
   * The process's shared pollers (its runtime's, `../runtime.ts`): the wait shares polls with the
   * other clusters of this endpoint + token waited on in this process (one listing serves them
   * all; shared-poll.ts), on the wait's clock. Without them each cluster is polled on its own.
   */
  pollers?: PollerRegistry;
  /** False: no sharing even with {@link WaitOptions.pollers}. */
  sharedPolling?: boolean;
  /** When the first polls of operations started together go, as one round (shared-poll.ts); by default at once. */
  firstRound?: FirstRoundPolicy;
  /**
   * Make the first poll as soon as possible, in place of the schedule's first (default true: the
   * wait follows the request that started the operation, which the service may have finished at
   * once). False when the status was just seen (a cluster busy with another operation, one found
   * by a GET or a listing): there is no reason to look again at once.
   */
  early?: boolean;
  /**
   * Ends the wait at once, with a `cancelled` {@link WaitError}, when it aborts: the engine's
   * Cancel (Ctrl-C). What the wait was for goes on at the service; the operation reports the
   * cluster as it does after a timeout, so the next run continues from it.
   */
  cancelled?: AbortSignal;
}

/** The shared poller that waits with these options use, if any (see {@link WaitOptions.sharedPolling}). */
export function sharedPollerOf(
  options: Pick<WaitOptions, "client" | "clock" | "pollers" | "sharedPolling" | "firstRound">,
): SharedPoller | undefined {
  if (!options.pollers || options.sharedPolling === false) return undefined;
  return sharedPollerFor(options.pollers, options.clock ?? systemClock, options.client, options.firstRound);
}

/**
 * Send the request that starts an operation (POST, PATCH, DELETE) so that the early first polls
 * of its connection wait for its answer (see `SharedPoller.sending`); as is without shared polling.
 */
export function sendStarting<T>(
  options: Pick<WaitOptions, "client" | "clock" | "pollers" | "sharedPolling" | "firstRound">,
  request: () => Promise<T>,
): Promise<T> {
  return sharedPollerOf(options)?.sending(request) ?? request();
}

/**
 * Poll until the cluster reaches `target`.
 *
 * @returns the cluster as last seen when `target` is `running`; undefined for `gone`
 * @throws WaitError `failed` (status error, or deleting while waiting for running), `gone`
 *   (404 while waiting for running) or `timeout`; a non-transient API error (401, 403...) as is
 */
export async function waitForCluster(options: WaitOptions): Promise<ApiCluster | undefined> {
  const clock = options.clock ?? systemClock;
  const schedule = options.schedule ?? DEFAULT_POLL_SCHEDULE;
  const start = options.startedAt ?? clock.now();
  const deadline = start + options.timeoutMs;
  // Every poll is bounded by the wait's deadline too, whatever the service's headers ask for.
  const within = (): CallOptions => ({ deadlineInMs: deadline - clock.now(), deadlineName: options.deadlineName ?? WAIT_TIMEOUT });
  let last: ApiCluster | undefined;
  let lastProblem: string | undefined;
  let polls = 0;
  let nodes: ApiNodeList | undefined;
  let nodesListedAt: number | undefined;
  const shared = sharedPollerOf(options);

  let early = options.early !== false;
  let afterEarly = false;
  const cancelledError = () =>
    new WaitError(
      `the wait for cluster ${options.id} to ${options.target === "running" ? "become running" : "be deleted"} was cancelled (Ctrl-C); the cluster is where the service left it`,
      "cancelled",
      last,
    );
  /** `work`, or the cancellation's error as soon as it comes; `work` goes on unobserved. */
  const unlessCancelled = <T>(work: Promise<T>): Promise<T> => {
    const signal = options.cancelled;
    if (!signal) return work;
    if (signal.aborted) {
      work.catch(() => undefined);
      return Promise.reject(cancelledError());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(cancelledError());
      signal.addEventListener("abort", onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  };

  for (;;) {
    if (options.cancelled?.aborted) throw cancelledError();
    const now = clock.now();
    const delay = afterEarly
      ? delayAfterEarlyPoll(now - start, deadline - now, schedule)
      : nextPollDelay(now - start, deadline - now, schedule, polls === 0);
    // The early poll takes the schedule's first one's place: at once alone; shared, as soon as the
    // wave's requests are answered, at the latest when that first poll is due.
    const thisEarly = early;
    early = false;
    afterEarly = thisEarly;
    if (delay > 0 && !shared && !thisEarly) await unlessCancelled(clock.sleep(delay, options.cancelled));

    let cluster: ApiCluster | undefined;
    let fromSharedRound = false;
    try {
      if (shared) {
        const seen = await unlessCancelled(
          shared.observe(options.id, delay, {
            first: thisEarly,
            gone: options.target === "gone",
            deadline: { at: deadline, name: options.deadlineName ?? WAIT_TIMEOUT },
          }),
        );
        cluster = seen.cluster;
        fromSharedRound = seen.shared;
      } else {
        cluster = await unlessCancelled(options.client.getCluster(options.id, within()));
      }
      lastProblem = undefined;
    } catch (e) {
      if (e instanceof WaitError) throw e;
      if (isNotFound(e)) {
        if (options.target === "gone") return undefined;
        throw new WaitError(
          `cluster ${options.id} disappeared while waiting for it to become running (deleted outside Pulumi?)`,
          "gone",
          last,
        );
      }
      // A blip the client's own retries did not outlast, or a wait the deadline (this wait's, or
      // an earlier one of a poll shared with other waits) did not allow: keep polling until the deadline.
      if (!isTransient(e) && !(e instanceof DeadlineError)) throw e;
      lastProblem = safeMessage(e, options.secrets);
    }

    polls += 1;

    if (cluster) {
      last = cluster;
      const verdict = judgeStatus(cluster.status, options.target);
      if (verdict === "done") return cluster;
      if (verdict === "failed") {
        const why =
          cluster.status === "error"
            ? `cluster ${options.id} is in status "error": the service reported that the operation failed`
            : `cluster ${options.id} is being deleted (status "${cluster.status}"), so it will not become running`;
        throw new WaitError(why, "failed", cluster);
      }
    }

    if (options.onProgress) {
      // Not after a shared listing: one node list per cluster would undo what sharing saved.
      const listNow = clock.now();
      if (cluster && options.countNodes !== false && !fromSharedRound && nodeListDue(nodesListedAt, listNow, start)) {
        nodesListedAt = listNow;
        try {
          nodes = await unlessCancelled(options.client.listNodes(options.id, within()));
        } catch {
          // Progress is a courtesy: a failed node list must not fail the operation.
        }
      }
      const status = cluster?.status ?? last?.status ?? "waiting";
      const line =
        options.target === "gone"
          ? `${goneLine(options.id, cluster?.status ?? last?.status)}${lastProblem ? `; retrying after ${lastProblem}` : ""}`
          : lastProblem
            ? `${status}: retrying after ${lastProblem}`
            : progressLine(status, nodes);
      options.onProgress(line, cluster, nodes);
    }

    if (clock.now() >= deadline) {
      const seen = last ? `last status "${last.status}"` : "no status seen";
      const problem = lastProblem ? `; last error: ${lastProblem}` : "";
      throw new WaitError(
        `timed out after ${formatDuration(options.timeoutMs)} waiting for cluster ${options.id} to ` +
          `${options.target === "running" ? "become running" : "be deleted"} (${seen}${problem})`,
        "timeout",
        last,
      );
    }
  }
}

/** {@link waitForCluster} until `running`: the cluster as seen then. */
export async function waitForRunning(options: Omit<WaitOptions, "target">): Promise<ApiCluster> {
  const cluster = await waitForCluster({ ...options, target: "running" });
  // A wait for "running" ends with the cluster or with a WaitError; never empty-handed.
  if (!cluster) throw new WaitError(`cluster ${options.id} is gone`, "gone");
  return cluster;
}

/** {@link waitForCluster} until the cluster is gone (404); node counts are not needed for it. */
export async function waitForGone(options: Omit<WaitOptions, "target" | "countNodes">): Promise<void> {
  await waitForCluster({ ...options, target: "gone", countNodes: false });
}
