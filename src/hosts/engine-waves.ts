/**
 * What the Pulumi engine's way of starting operations tells the shared poller
 * (`provider/polling/shared-poll.ts`): when a wave's first round may go, so that the creates, updates or
 * deletes the engine started together share one listing rather than polling one by one.
 *
 * The engine checks a resource before it creates or updates it, and starts the operation
 * milliseconds after the check when one of its slots (`--parallel`) is free; a destroy's deletes
 * come without a check. So a first round waits while operations checked have not started, until
 * as many operations wait as the engine's slots (the largest wave so far or, before any, the CLI's
 * default, {@link defaultEngineSlots}) or until the connection has been quiet for a spell: short
 * while checked operations have not started (they wait for a slot, so the wave is complete), longer
 * when operations come unannounced (the engine starts the next one milliseconds to tens of
 * milliseconds after the previous one). An operation that never comes (a failed `up`, a preview)
 * only makes first rounds wait for a quiet spell instead of going at once.
 *
 * Each host tells the waves what its engine calls show: {@link EngineWaves.checked} after a check
 * that passed, {@link EngineWaves.settled} once the operation starts or a diff finds no change.
 */
import { availableParallelism } from "node:os";
import { type FirstRound, type FirstRoundPolicy, type SharedPoller, touchSharedPollers } from "../provider/polling/shared-poll";

/**
 * The number of operations the Pulumi CLI runs at once unless told otherwise: `PULUMI_PARALLEL`
 * (a plugin inherits the CLI's environment), else 4 per CPU (the CLI's default for `--parallel`).
 * A wave that large has filled the slots. A `--parallel` flag is invisible here: with fewer slots
 * the quiet spell still ends the wave; with more, the operations beyond this many share the
 * next round instead of this one.
 */
export function defaultEngineSlots(env: NodeJS.ProcessEnv = process.env, cpus: number = availableParallelism()): number {
  const fromEnv = Number(env.PULUMI_PARALLEL);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 4 * Math.max(1, cpus);
}

/** The quiet spells of a host's waves, in milliseconds (see the module comment). */
export interface QuietSpells {
  /** While operations the engine has checked have not started. */
  slotsFullMs: number;
  /** While operations come unannounced (a destroy's deletes). */
  gatherMs: number;
}

/**
 * The quiet spells of both hosts: the engine starts the native plugin's operations as it starts
 * the dynamic host's. Checked operations start milliseconds after their check when a slot is
 * free, so 40 ms without any means the slots are full; unannounced, the engine starts the next
 * delete milliseconds to tens of milliseconds after the previous one. (Without spells, the native
 * plugin's `up` of 20 clusters made 49 API calls instead of 43, and no gain in time showed:
 * docs/benchmarks.md, "What the native face costs".)
 */
export const ENGINE_SPELLS: Readonly<QuietSpells> = Object.freeze({ slotsFullMs: 40, gatherMs: 100 });

/** What the waves keep: the URNs checked whose operation has not started, and whether any check was seen. */
export interface ExpectedOperations {
  urns: Set<string>;
  announcing: boolean;
}

/** One host's view of the engine's waves: when its shared pollers' first rounds go. */
export class EngineWaves implements FirstRoundPolicy {
  /**
   * @param state where the expected operations are kept (the dynamic host's are its process's
   *   runtime's, shared by every copy of the package in its process)
   * @param spells the quiet spells
   * @param pollers the pollers that follow the waves (the runtime's), told when the engine adds to a wave
   * @param slots the engine's slots before a wave has shown them
   */
  constructor(
    private readonly state: () => ExpectedOperations,
    private readonly spells: QuietSpells,
    private readonly pollers: Map<string, SharedPoller>,
    private readonly slots: number = defaultEngineSlots(),
  ) {}

  /**
   * A round goes at once when no operation is to come: none checked and not started, or, when
   * the engine does not announce them (a destroy's deletes), no wave has shown several at once. It
   * goes at once too when the wave fills the engine's slots (the largest wave a poller has served,
   * or before any, {@link defaultEngineSlots}); else after a quiet spell on the connection.
   */
  firstRoundAt({ now, waiting, largestServed, lastActivityAt }: FirstRound): number {
    const { urns, announcing } = this.state();
    if (announcing ? urns.size === 0 : largestServed < 2) return now;
    const slots = largestServed > 1 ? largestServed : this.slots;
    if (waiting >= slots) return now;
    // Checked operations have not started: as long as operations start, requests are answered or
    // checks come, the wave may grow; once nothing has happened for a quiet spell, the engine's
    // slots are full. (A destroy's deletes come unannounced: the longer spell.)
    return lastActivityAt + (announcing ? this.spells.slotsFullMs : this.spells.gatherMs);
  }

  /** A check of `urn` passed: in `up` its create, or an update if diff finds changes, may follow. */
  checked(urn: string | undefined): void {
    const expected = this.state();
    expected.announcing = true;
    if (urn === undefined) return;
    expected.urns.add(urn);
    // The engine is still adding to the wave: a first round waiting for it waits on.
    touchSharedPollers(this.pollers);
  }

  /** No operation is to come for `urn` any more: it is starting, or its diff found no change. */
  settled(urn: string | undefined): void {
    if (urn !== undefined && this.state().urns.delete(urn)) touchSharedPollers(this.pollers);
  }
}

/** No expected operation, no check seen yet. */
export function noExpectedOperations(): ExpectedOperations {
  return { urns: new Set(), announcing: false };
}
