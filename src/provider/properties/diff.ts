/**
 * `diff`: compare the cluster as it is (the state's outputs, refreshed or not) with the
 * program's checked inputs. Pure.
 *
 * - `workers` and `nodeSize` change in place (one PATCH).
 * - A cluster in status `error` is replaced (the service cannot repair it); one recorded while
 *   still `provisioning` is updated, which waits for it to run.
 * - `name`, `controlPlanes`, `phase` and `infraId` need a new cluster. When the user chose the
 *   name and it stays the same, the old cluster must go first (delete-before-replace), since a
 *   second cluster with that name would clash; an auto-named cluster gets a fresh name on
 *   replacement (the engine re-runs check without olds), so it is created before the old one goes.
 * - `connection`, timeouts and the other hidden inputs are how we talk to the service, not what
 *   the cluster is: changing them alone is no change.
 */
import { REPLACE_PROPERTIES, UPDATABLE_PROPERTIES } from "../types";
import { containsUnknown, isUnknown } from "./unknown";

/** How one property changes, as the engine's detailed diff names it. */
export type PropertyDiffKind = "ADD" | "ADD_REPLACE" | "DELETE" | "DELETE_REPLACE" | "UPDATE" | "UPDATE_REPLACE";

/** Detailed diff entry. */
export interface PropertyDiff {
  /** Add, delete or update, with or without replacement. */
  kind: PropertyDiffKind;
  /** True: the difference is between inputs (the program), not computed outputs. */
  inputDiff: boolean;
}

/**
 * Result of {@link diffCluster}: the dynamic provider's DiffResult plus `diffs` and
 * `detailedDiff`. (The Node dynamic-provider host forwards `changes`, `replaces` and
 * `deleteBeforeReplace` to the engine; the rest documents the decision and is tested.)
 */
export interface ClusterDiff {
  /** True when anything the cluster is made of differs. */
  changes: boolean;
  /** Properties whose change needs a new cluster. */
  replaces: string[];
  /** Delete the old cluster before creating its replacement. */
  deleteBeforeReplace: boolean;
  /** Properties an in-place update leaves as they are. */
  stables: string[];
  /** Every changed property. */
  diffs: string[];
  /** How each changed property changes. */
  detailedDiff: Record<string, PropertyDiff>;
}

/** "Not set" spellings that mean the same thing for an optional property. */
function normalize(v: unknown): unknown {
  return v === undefined || v === null || v === "" ? undefined : v;
}

/**
 * Compute the diff between the current state `olds` (outputs) and the checked inputs `news`.
 */
export function diffCluster(olds: Record<string, unknown>, news: Record<string, unknown>): ClusterDiff {
  const replaces: string[] = [];
  const diffs: string[] = [];
  const detailedDiff: Record<string, PropertyDiff> = {};

  const consider = (prop: string, replace: boolean) => {
    const before = normalize(olds[prop]);
    const after = normalize(news[prop]);
    // An unknown new value may differ: assume it does (a preview then shows the possible change).
    const changed = containsUnknown(after) || before !== after;
    if (!changed) return;
    diffs.push(prop);
    if (replace) replaces.push(prop);
    const kind: PropertyDiffKind =
      before === undefined
        ? replace
          ? "ADD_REPLACE"
          : "ADD"
        : after === undefined
          ? replace
            ? "DELETE_REPLACE"
            : "DELETE"
          : replace
            ? "UPDATE_REPLACE"
            : "UPDATE";
    detailedDiff[prop] = { kind, inputDiff: true };
  };

  for (const p of UPDATABLE_PROPERTIES) consider(p, false);
  for (const p of REPLACE_PROPERTIES) consider(p, true);

  // A cluster the service reports in `error` (a failed create or PATCH, kept in the stack as an
  // init error, or seen by refresh) never becomes running again: the next `up` replaces it, so
  // it neither fails forever nor leaves a broken cluster behind.
  if (olds.status === "error") {
    diffs.push("status");
    replaces.push("status");
    detailedDiff.status = { kind: "UPDATE_REPLACE", inputDiff: false };
  } else if (olds.status === "provisioning" && diffs.length === 0) {
    // Recorded before it ran (a create past its timeout, an interrupted run's cluster recorded by
    // cms-recover): the next `up` waits for it, an update that changes nothing else. The init
    // error the engine keeps for it does so too, but a refresh (`up --refresh`) drops it.
    diffs.push("status");
    detailedDiff.status = { kind: "UPDATE", inputDiff: false };
  }

  // Delete first only when the user pinned the name and the replacement would reuse it.
  const explicitName = news.__autonamed !== true;
  const sameName = !isUnknown(news.name) && typeof news.name === "string" && normalize(olds.name) === normalize(news.name);
  const deleteBeforeReplace = replaces.length > 0 && explicitName && sameName;

  // Without a replacement, the immutable properties keep their values through the update.
  const stables = replaces.length > 0 ? [] : [...REPLACE_PROPERTIES];
  return {
    changes: diffs.length > 0,
    replaces,
    deleteBeforeReplace,
    stables,
    diffs,
    detailedDiff,
  };
}
