/**
 * examples/kubernetes-app (the README's Kubernetes section) on the quick start's emulator, which
 * runs no Kubernetes: the real Pulumi CLI and the real Kubernetes resource plugin, on the
 * kubeconfig such an emulator serves. The cluster is created; the app fails with a message that
 * names the cause and the fix, not with a certificate error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, startLifecycleEmulator, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { kubernetesPluginDir, kubernetesUnavailable } from "../support/kubernetes";
import { exampleProject } from "./project";

const STEP = 5 * 60_000;
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable({ plugin: true, controlPlane: false });

describe.skipIf(skip !== undefined)(
  `examples/kubernetes-app on an emulator without --kubernetes${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let emu: LifecycleEmulator;
    let project: PulumiProject;

    beforeAll(async () => {
      await findPulumi();
      emu = await startLifecycleEmulator();
      project = await exampleProject("kubernetes-app", emu, "records");
      // The test's PULUMI_HOME is empty: the CLI runs the plugin it finds on PATH, as it says.
      project.env.PATH = `${kubernetesPluginDir()}:${process.env.PATH}`;
    }, STEP);
    afterAll(async () => {
      await project?.destroy([], { allowFailure: true });
      await project?.dispose();
      await emu?.close();
    }, STEP);

    it(
      "up creates the cluster, then the plugin's error names the missing API server and `cms-emulator --kubernetes`",
      async () => {
        const up = await project.up([], { allowFailure: true });
        expect(up.code).not.toBe(0);
        expect(up.output).toContain("using pulumi-resource-kubernetes from $PATH");
        const [cluster] = await emu.clusters();
        expect(cluster).toMatchObject({ status: "running" });
        expect(up.output).toContain(`cluster ${cluster.id} has no Kubernetes API server: cms-emulator was started without --kubernetes`);
        expect(up.output).toMatch(
          /restart it as cms-emulator --kubernetes \(see https:\/\/\S+\/packages\/emulator\/docs\/kubernetes\.md\)/,
        );
        expect(up.output).not.toMatch(/x509|certificate/);
      },
      STEP,
    );
  },
);
