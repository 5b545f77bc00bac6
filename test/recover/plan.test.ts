/** Which cluster an interrupted create made: the rule `cms-recover` acts on (pure). */
import { describe, expect, it } from "vitest";
import type { ApiCluster } from "../../src/shared/wire-types";
import { planRecovery, type PendingCreate } from "../../src/recover/plan";

const T0 = Date.parse("2026-11-23T10:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();
const cluster = (id: string, over: Partial<ApiCluster> = {}): ApiCluster =>
  ({
    id,
    name: "pinned",
    status: "provisioning",
    phase: "managed",
    control_planes: 1,
    workers: 2,
    node_size: "small",
    created_at: at(1_000),
    ...over,
  }) as ApiCluster;
const pending = (over: Record<string, unknown> = {}): PendingCreate => ({
  urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::c",
  inputs: { name: "pinned", controlPlanes: 1, workers: 2, nodeSize: "small", phase: "managed", __requestedAt: at(0), ...over },
});

describe("planRecovery", () => {
  it("explicit name: takes the cluster made after the create began, never an older twin", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_console", { created_at: at(-60_000) }), cluster("cls_ours")]);
    expect(plan.imports.map((i) => i.id)).toEqual(["cls_ours"]);
    expect(plan.ambiguous).toEqual([]);
  });

  it("explicit name: an older twin alone is not ours: the pending create is dropped", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_console", { created_at: at(-60_000) })]);
    expect(plan.imports).toEqual([]);
    expect(plan.clears).toHaveLength(1);
  });

  it("explicit name: other shape, a cluster in the state, or one being deleted does not count", () => {
    const plan = planRecovery([pending()], new Set(["cls_state"]), [
      cluster("cls_big", { workers: 5 }),
      cluster("cls_3cp", { control_planes: 3 }),
      cluster("cls_state"),
      cluster("cls_dying", { status: "deleting" }),
    ]);
    expect(plan.imports).toEqual([]);
  });

  it("explicit name without a recorded request time (an older release) is never matched", () => {
    const plan = planRecovery([pending({ __requestedAt: undefined })], new Set(), [cluster("cls_ours")]);
    expect(plan.imports).toEqual([]);
  });

  it("several candidates: nobody guesses", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_a"), cluster("cls_b", { created_at: at(2_000) })]);
    expect(plan.ambiguous[0].candidates.map((c) => c.id)).toEqual(["cls_a", "cls_b"]);
    expect(plan.imports).toEqual([]);
  });

  it("derived auto-name: the name is the evidence, whatever the clocks say", () => {
    const plan = planRecovery([pending({ name: "web-abc1234", __autonamed: true, __requestedAt: at(3_600_000) })], new Set(), [
      cluster("cls_auto", { name: "web-abc1234" }),
    ]);
    expect(plan.imports.map((i) => i.id)).toEqual(["cls_auto"]);
  });
});
