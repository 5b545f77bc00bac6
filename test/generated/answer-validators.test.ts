/**
 * The client checks answers with the contract's schemas compiled ahead of time
 * (src/generated/answer-validators.ts): the committed file is what the contract's schemas generate
 * now, and it judges answers as Ajv compiling those schemas does.
 */
import * as contract from "@pulumi-cms/contract";
import Ajv from "ajv";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ANSWER_CHECK_OPTIONS, ANSWER_VALIDATORS_FILE, answerValidatorsSource } from "../../scripts/gen-answer-validators.mjs";
import {
  cluster as clusterCheck,
  clusterList as clusterListCheck,
  kubeconfig as kubeconfigCheck,
} from "../../src/generated/answer-validators";

type Check = ((data: unknown) => boolean) & { errors?: unknown };
const COMPILED: Record<string, Check> = { cluster: clusterCheck, clusterList: clusterListCheck, kubeconfig: kubeconfigCheck };

describe("the compiled answer validators", () => {
  it("are what the contract's schemas generate (else: npm run gen:validators)", () => {
    expect(fs.readFileSync(ANSWER_VALIDATORS_FILE, "utf8") === answerValidatorsSource(contract), "run npm run gen:validators").toBe(true);
  });

  const cluster = {
    id: "cls_abc",
    name: "a",
    status: "running",
    phase: "cloud",
    control_planes: 1,
    workers: 2,
    node_size: "small",
    created_at: "2026-01-01T00:00:00Z",
    node_count: 3,
    endpoint: "https://a.example",
    kubernetes_version: "1.37.2",
    updated_at: "2026-01-01T00:00:00Z",
  };
  const cases: [string, object, unknown][] = [
    ["cluster", contract.clusterSchema, cluster],
    ["cluster", contract.clusterSchema, { ...cluster, id: "node_1" }],
    ["cluster", contract.clusterSchema, { ...cluster, workers: -1 }],
    ["cluster", contract.clusterSchema, { ...cluster, infra_id: 7 }],
    ["clusterList", contract.clusterListSchema, { items: [cluster, { ...cluster, endpoint: undefined }] }],
    ["clusterList", contract.clusterListSchema, { items: [], page: 0 }],
    ["kubeconfig", contract.kubeconfigSchema, {}],
  ];
  it.each(cases)("judge %s answers as Ajv compiling the schema does (case %#)", (shape, schema, answer) => {
    const reference = new Ajv(ANSWER_CHECK_OPTIONS).compile(schema);
    const check = COMPILED[shape];
    const ok = check(answer);
    expect(ok).toBe(reference(answer));
    expect(check.errors ?? null).toEqual(reference.errors ?? null);
  });
});
