/** `cms-recover --adopt ID` with no create pending: what it records, and when it refuses (pure). */
import { describe, expect, it } from "vitest";
import type { ApiCluster } from "@pulumi-cms/contract";
import { decideAdoption, type PreviewStep } from "../../src/recover/adopt";
import type { StateResource } from "../../src/recover/stack";

const STACK = "urn:pulumi:prod::p::pulumi:pulumi:Stack::p-prod";
const PROVIDER = "urn:pulumi:prod::p::pulumi:providers:pulumi-nodejs::default";
const URN = "urn:pulumi:prod::p::pulumi-nodejs:dynamic/cms:Cluster::db";
const cluster = (over: Partial<ApiCluster> = {}): ApiCluster =>
  ({
    id: "cls_lost",
    name: "db",
    status: "running",
    phase: "managed",
    control_planes: 1,
    workers: 2,
    node_size: "small",
    created_at: "2026-11-23T10:00:00Z",
    ...over,
  }) as ApiCluster;
const resources: StateResource[] = [
  { urn: STACK, type: "pulumi:pulumi:Stack" },
  { urn: PROVIDER, type: "pulumi:providers:pulumi-nodejs", id: "prov-1", custom: true },
  { urn: "urn:pulumi:prod::p::pulumi-nodejs:dynamic/cms:Cluster::web", type: "pulumi-nodejs:dynamic/cms:Cluster", id: "cls_web" },
];
const create = (inputs: Record<string, unknown> = {}, over: Partial<PreviewStep> = {}): PreviewStep => ({
  op: "create",
  urn: URN,
  newState: {
    type: "pulumi-nodejs:dynamic/cms:Cluster",
    parent: STACK,
    provider: `${PROVIDER}::prov-1`,
    inputs: { name: "db", controlPlanes: 1, workers: 2, nodeSize: "small", phase: "managed", __provider: "code", ...inputs },
    additionalSecretOutputs: ["kubeconfig"],
  },
  ...over,
});

describe("cms-recover --adopt ID with no create pending", () => {
  it("records the cluster as the Cluster the preview creates with its name: its URN, parent, provider, inputs and secret outputs, marked to be read", () => {
    const adoption = decideAdoption("cls_lost", cluster(), resources, undefined, [create()]);
    expect(adoption).toEqual({
      verdict: "record",
      resource: {
        urn: URN,
        custom: true,
        type: "pulumi-nodejs:dynamic/cms:Cluster",
        id: "cls_lost",
        parent: STACK,
        provider: `${PROVIDER}::prov-1`,
        inputs: { name: "db", controlPlanes: 1, workers: 2, nodeSize: "small", phase: "managed", __provider: "code" },
        outputs: { name: "db", controlPlanes: 1, workers: 2, nodeSize: "small", phase: "managed", __provider: "code" },
        additionalSecretOutputs: ["kubeconfig"],
        initErrors: [expect.stringContaining("cms-recover --adopt")],
      },
    });
  });

  it("leaves a cluster the stack records as it is (idempotent)", () => {
    expect(decideAdoption("cls_web", cluster({ id: "cls_web" }), resources, undefined, [create()])).toEqual({
      verdict: "recorded already",
      urn: "urn:pulumi:prod::p::pulumi-nodejs:dynamic/cms:Cluster::web",
    });
  });

  it("refuses a cluster another stack records, one that is gone or being deleted", () => {
    const elsewhere = { stack: "organization/q/prod", urn: "urn:pulumi:prod::q::pulumi-nodejs:dynamic/cms:Cluster::db" };
    expect(decideAdoption("cls_lost", cluster(), resources, elsewhere, [create()])).toEqual({
      verdict: "refused",
      why: expect.stringMatching(/recorded by stack organization\/q\/prod/),
    });
    expect(decideAdoption("cls_lost", undefined, resources, undefined, [create()])).toMatchObject({
      verdict: "refused",
      why: /does not exist/,
    });
    expect(decideAdoption("cls_lost", cluster({ status: "deleting" }), resources, undefined, [create()])).toMatchObject({
      verdict: "refused",
      why: /being deleted/,
    });
  });

  it("refuses when no Cluster of the program creates its name, or several do, or the program does not describe it", () => {
    expect(decideAdoption("cls_lost", cluster(), resources, undefined, [create({ name: "other" })])).toMatchObject({
      verdict: "refused",
      why: /no Cluster of the program .* named "db"/,
    });
    expect(decideAdoption("cls_lost", cluster(), resources, undefined, [create({}, { op: "same" })])).toMatchObject({ verdict: "refused" });
    expect(decideAdoption("cls_lost", cluster(), resources, undefined, [create(), create({}, { urn: `${URN}2` })])).toMatchObject({
      verdict: "refused",
      why: /several Clusters/,
    });
    expect(decideAdoption("cls_lost", cluster(), resources, undefined, [create({ controlPlanes: 3 })])).toMatchObject({
      verdict: "refused",
      why: /controlPlanes: program 3, cluster 1/,
    });
  });

  it("refuses when the stack records no provider for the Cluster yet, naming the import option", () => {
    const step = create();
    (step.newState as { provider: string }).provider = `${PROVIDER}::04da6b54-80e4-46f7-96ec-b56ff0331ba9`;
    expect(decideAdoption("cls_lost", cluster(), resources, undefined, [step])).toMatchObject({
      verdict: "refused",
      why: /`import` resource option/,
    });
  });

  it("never writes the preview's placeholder of a secret input", () => {
    const adoption = decideAdoption("cls_lost", cluster(), resources, undefined, [create({ connection: "[secret]" })]);
    expect(adoption.verdict === "record" && adoption.resource.inputs).not.toHaveProperty("connection");
  });
});
