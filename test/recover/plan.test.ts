/** Which cluster an interrupted create made: the rule `cms-recover` acts on (pure). */
import { describe, expect, it } from "vitest";
import type { ApiCluster } from "@pulumi-cms/contract";
import { planRecovery, type PendingCreate } from "../../src/recover/plan";
import { derivedAutoName } from "../../src/provider/naming/auto-name";

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

const URN = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::web";
const SEED = "0123456789abcdef0123456789abcdef";
const seeded = derivedAutoName(URN, 0, SEED);
const autoPending = (over: Record<string, unknown> = {}): PendingCreate => ({
  urn: URN,
  inputs: {
    name: seeded,
    __autonamed: true,
    __seed: SEED,
    __urn: URN,
    controlPlanes: 1,
    workers: 2,
    nodeSize: "small",
    phase: "managed",
    __requestedAt: at(3_600_000),
    ...over,
  },
});

describe("planRecovery", () => {
  it("seeded auto-name: the cluster carrying it is recorded, whatever the clocks say", () => {
    const plan = planRecovery([autoPending()], new Set(), [cluster("cls_auto", { name: seeded })]);
    expect(plan.imports).toEqual([{ urn: URN, id: "cls_auto", name: seeded, why: "seeded name" }]);
    expect(plan.undecided).toEqual([]);
  });

  it("the native face's pending create (its inputs record no URN): the pending operation's URN proves the seeded name", () => {
    const urn = "urn:pulumi:dev::p::cms:index:Cluster::web";
    const name = derivedAutoName(urn, 0, SEED);
    const { __urn: _, ...inputs } = autoPending({ name }).inputs;
    const plan = planRecovery([{ urn, inputs }], new Set(), [cluster("cls_native", { name }), cluster("cls_other", { name: seeded })]);
    expect(plan.imports).toEqual([{ urn, id: "cls_native", name, why: "seeded name" }]);
  });

  it("a URN that did not derive the name proves nothing, even with the seed", () => {
    const { __urn: _, ...inputs } = autoPending().inputs;
    const plan = planRecovery([{ urn: "urn:pulumi:dev::p::cms:index:Cluster::other", inputs }], new Set(), [
      cluster("cls_auto", { name: seeded, created_at: at(3_601_000) }),
    ]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided[0]).toMatchObject({ reason: "no-proof" });
  });

  it("seeded auto-name carried by several clusters: nobody guesses", () => {
    const plan = planRecovery([autoPending()], new Set(), [cluster("cls_a", { name: seeded }), cluster("cls_b", { name: seeded })]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided[0]).toMatchObject({ reason: "ambiguous" });
    expect(plan.undecided[0].candidates.map((c) => c.id)).toEqual(["cls_a", "cls_b"]);
  });

  it("a 0.2.0 auto-name (no seed) proves nothing: a twin stack computes it too", () => {
    const legacy = derivedAutoName(URN, 0);
    const plan = planRecovery([autoPending({ name: legacy, __seed: undefined, __requestedAt: at(0) })], new Set(), [
      cluster("cls_twin", { name: legacy }),
    ]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided.map((u) => u.candidates.map((c) => c.id))).toEqual([["cls_twin"]]);
  });

  it("a seed that does not derive the name proves nothing", () => {
    const plan = planRecovery([autoPending({ __seed: "f".repeat(32), __requestedAt: at(0) })], new Set(), [
      cluster("cls_x", { name: seeded }),
    ]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided).toHaveLength(1);
  });

  it("explicit name: the cluster made after the create began is only a candidate, never recorded on its own", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_console", { created_at: at(-60_000) }), cluster("cls_ours")]);
    expect(plan.imports).toEqual([]);
    expect(plan.clears).toEqual([]);
    expect(plan.undecided.map((u) => u.candidates.map((c) => c.id))).toEqual([["cls_ours"]]);
  });

  it("explicit name: --adopt ID records the named cluster", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_ours")], new Set(["cls_ours"]));
    expect(plan.imports).toEqual([{ urn: pending().urn, id: "cls_ours", name: "pinned", why: "named with --adopt" }]);
    expect(plan.undecided).toEqual([]);
    expect(plan.unmatchedAdoptions).toEqual([]);
  });

  it("--adopt of a cluster no pending create asked for (other name, in the state, unknown) is reported, not used", () => {
    const plan = planRecovery(
      [pending()],
      new Set(["cls_state"]),
      [cluster("cls_other", { name: "other" }), cluster("cls_state")],
      new Set(["cls_other", "cls_state", "cls_nope"]),
    );
    expect(plan.imports).toEqual([]);
    expect(plan.unmatchedAdoptions.sort()).toEqual(["cls_nope", "cls_other", "cls_state"]);
  });

  it("explicit name: an older twin alone is not a candidate: the pending create is dropped", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_console", { created_at: at(-60_000) })]);
    expect(plan.imports).toEqual([]);
    expect(plan.clears).toHaveLength(1);
  });

  it("explicit name: other shape, a cluster in the state, or one being deleted is not a candidate", () => {
    const plan = planRecovery([pending()], new Set(["cls_state"]), [
      cluster("cls_big", { workers: 5 }),
      cluster("cls_3cp", { control_planes: 3 }),
      cluster("cls_state"),
      cluster("cls_dying", { status: "deleting" }),
    ]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided).toEqual([]);
    expect(plan.clears).toHaveLength(1);
  });

  it("a pending create whose cluster a later run took over (the stack records it): dropped as stale, naming the cluster", () => {
    const plan = planRecovery([autoPending()], new Set(["cls_taken"]), [cluster("cls_taken", { name: seeded, status: "running" })]);
    expect(plan.imports).toEqual([]);
    expect(plan.clears).toEqual([{ urn: URN, name: seeded, recorded: "cls_taken" }]);
  });

  it("explicit name without a recorded request time (an older release): every same-named cluster of its shape is a candidate", () => {
    const plan = planRecovery([pending({ __requestedAt: undefined })], new Set(), [cluster("cls_ours", { created_at: at(-86_400_000) })]);
    expect(plan.imports).toEqual([]);
    expect(plan.undecided.map((u) => u.candidates.map((c) => c.id))).toEqual([["cls_ours"]]);
  });

  it("several candidates: all are named", () => {
    const plan = planRecovery([pending()], new Set(), [cluster("cls_a"), cluster("cls_b", { created_at: at(2_000) })]);
    expect(plan.undecided[0].candidates.map((c) => c.id)).toEqual(["cls_a", "cls_b"]);
    expect(plan.imports).toEqual([]);
  });
});
