/**
 * Against a service that is done when it answers (the emulator with instant lifecycle), with the
 * real CLI: a create makes only the calls it needs. Its first poll comes as soon as the POST is
 * answered; a stack whose auto-name seed is drawn in this very run has no interrupted run's
 * cluster to look for, while one whose seed the state recorded before still looks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;

const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");
const count = new pulumi.Config().requireNumber("count");
for (let i = 0; i < count; i++) new cms.Cluster("c" + i, { controlPlanes: 1, workers: 1, nodeSize: "small" });
`;

describe.skipIf(lifecycleSkipped())("a service that is done when it answers", () => {
  let emu: LifecycleEmulator;
  let p: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator({ provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0 });
    p = await createProject({
      name: "cms-instant",
      program: PROGRAM,
      config: { ...emu.stackConfig(), count: 1 },
      secretConfig: emu.secretConfig(),
    });
  }, STEP_TIMEOUT);
  afterAll(() => teardown(p ? [p] : [], emu), STEP_TIMEOUT);

  it(
    "a new stack's first up: POST, one status poll, the kubeconfig; adding a cluster later also looks for an interrupted run's",
    async () => {
      await emu.control.resetRequestCounts();
      await p.up();
      // The seed was drawn in this run: no earlier run can have named a cluster from it.
      expect(await emu.control.requestCounts()).toEqual({
        "POST /v1/clusters": 1,
        "GET /v1/clusters/:cluster_id": 1,
        "GET /v1/clusters/:cluster_id/kubeconfig": 1,
      });

      await p.setConfig("count", 2);
      await emu.control.resetRequestCounts();
      await p.up();
      // The seed is in the state now: a run killed after its POST could have left this name.
      expect(await emu.control.requestCounts()).toEqual({
        "GET /v1/clusters": 1,
        "POST /v1/clusters": 1,
        "GET /v1/clusters/:cluster_id": 1,
        "GET /v1/clusters/:cluster_id/kubeconfig": 1,
      });
      await p.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});
