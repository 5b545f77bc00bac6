import { describe, expect, it } from "vitest";
import { planLines } from "../../src/recover/report";

const URN = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::web";
const plan = {
  imports: [{ urn: URN, id: "cls_0000000000000001", name: "web-abc1234", why: "seeded name" as const }],
  clears: [
    { urn: `${URN}2`, name: "db" },
    { urn: `${URN}3`, name: "web-def5678", recorded: "cls_0000000000000003" },
  ],
};

describe("what cms-recover says", () => {
  it("says what it does", () => {
    expect(planLines(plan, false)).toEqual([
      `cms-recover: ${URN}: cluster cls_0000000000000001 ("web-abc1234") was created by the interrupted run (it carries the stack's own auto-name): recording it`,
      `cms-recover: ${URN}2: no cluster "db" from the interrupted run: dropping the pending create`,
      `cms-recover: ${URN}3: cluster cls_0000000000000003 ("web-def5678") is recorded by the stack already (a later run took it over): dropping the pending create, which is stale`,
    ]);
  });

  it("with --dry-run, says what it would do and that nothing changed", () => {
    const lines = planLines(plan, true);
    expect(lines).toEqual([
      `cms-recover: ${URN}: cluster cls_0000000000000001 ("web-abc1234") was created by the interrupted run (it carries the stack's own auto-name): would record it`,
      `cms-recover: ${URN}2: no cluster "db" from the interrupted run: would drop the pending create`,
      `cms-recover: ${URN}3: cluster cls_0000000000000003 ("web-def5678") is recorded by the stack already (a later run took it over): would drop the pending create, which is stale`,
      "cms-recover: dry run: the stack was not changed; run without --dry-run to do the above",
    ]);
    expect(lines.join("\n")).not.toMatch(/recording it|dropping the/);
  });
});
