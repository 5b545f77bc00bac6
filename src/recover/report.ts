/**
 * What `cms-recover` says about its plan: what it did, or with `--dry-run` what it would do.
 * Pure, so that both wordings are tested side by side.
 */
import type { RecoveryPlan } from "./plan";

/** One line per pending create that the plan resolves; `dryRun` says what a real run would do. */
export function planLines(plan: Pick<RecoveryPlan, "imports" | "clears">, dryRun: boolean): string[] {
  const record = dryRun ? "would record it" : "recording it";
  const drop = dryRun ? "would drop the pending create" : "dropping the pending create";
  const lines = [
    ...plan.imports.map((i) => {
      const why = i.why === "seeded name" ? "it carries the stack's own auto-name" : "named with --adopt";
      return `cms-recover: ${i.urn}: cluster ${i.id} ("${i.name}") was created by the interrupted run (${why}): ${record}`;
    }),
    ...plan.clears.map((c) =>
      c.recorded
        ? `cms-recover: ${c.urn}: cluster ${c.recorded} ("${c.name}") is recorded by the stack already (a later run took it over): ${drop}, which is stale`
        : `cms-recover: ${c.urn}: no cluster "${c.name}" from the interrupted run: ${drop}`,
    ),
  ];
  if (dryRun) lines.push("cms-recover: dry run: the stack was not changed; run without --dry-run to do the above");
  return lines;
}
