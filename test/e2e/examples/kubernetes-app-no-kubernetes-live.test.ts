/**
 * examples/kubernetes-app (the README's Kubernetes section) on the quick start's emulator, which
 * runs no Kubernetes: the real Pulumi CLI and the real Kubernetes resource plugin, on the
 * kubeconfig such an emulator serves. The cluster is created; the app fails with a message that
 * names the cause and the fix, not with a certificate error. Then the fix as the message tells it:
 * the emulator restarted with `--kubernetes` (its clusters lost, as without `--state`), the next
 * `pulumi up` names `pulumi up --refresh`, and that deploys the app.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  CLUSTER_TYPE,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
} from "../lifecycle/harness.mjs";
import { kubernetesPluginDir, kubernetesUnavailable } from "../../support/kubernetes";
import { exampleProject } from "./project";

const STEP = 5 * 60_000;
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable({ plugin: true });

describe.skipIf(skip !== undefined)(
  `examples/kubernetes-app on an emulator without --kubernetes${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let emu: LifecycleEmulator;
    let project: PulumiProject;

    const kubeconfigServer = async (id: string) => {
      const res = await emu.api("GET", `/v1/clusters/${id}/kubeconfig`);
      expect(res.status).toBe(200);
      return parse(res.text).clusters[0].cluster.server as string;
    };

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
          /restart it as cms-emulator --kubernetes \(with its --state FILE, .*\), then run pulumi up --refresh, .*\(see https:\/\/\S+\/packages\/emulator\/docs\/kubernetes\.md\)/,
        );
        expect(up.output).not.toMatch(/x509|certificate/);
        // As the README says: here the endpoint and the kubeconfig's server differ, neither with an API server behind it.
        const state = (await project.exportStack()).resources.find((r) => r.type === CLUSTER_TYPE);
        expect(state?.outputs.endpoint).toBe(`https://${cluster.id.slice(4)}.clusters.cms.example:6443`);
        expect(await kubeconfigServer(cluster.id)).toBe(`${emu.url}/_no-kubernetes/${cluster.id}`);
      },
      STEP,
    );

    it(
      "restarted with --kubernetes as the message says, the next up names `pulumi up --refresh`, which deploys the app",
      async () => {
        const { token, adminToken } = emu;
        const port = Number(new URL(emu.url).port);
        await emu.close();
        emu = await startLifecycleEmulator({ port, token, adminToken, kubernetes: {} });

        const stale = await project.up([], { allowFailure: true });
        expect(stale.code).not.toBe(0);
        expect(stale.output).toMatch(/cluster cls_\w+ has no Kubernetes API server at this address: .* Run pulumi up --refresh/);
        expect(stale.output).not.toContain("could not find the requested resource");

        await project.up(["--refresh"]);
        const [cluster] = await emu.clusters();
        expect(cluster).toMatchObject({ status: "running" });
        const outputs = await project.outputs();
        expect(outputs.clusterId).toBe(cluster.id);
        // With --kubernetes the kubeconfig's server is the endpoint.
        expect(outputs.clusterEndpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        expect(await kubeconfigServer(cluster.id)).toBe(outputs.clusterEndpoint);
        const exported = await project.exportStack();
        expect(exported.resources.map((r) => r.type)).toEqual(expect.arrayContaining(["kubernetes:apps/v1:Deployment"]));
      },
      STEP,
    );
  },
);
