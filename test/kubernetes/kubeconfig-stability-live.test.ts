/**
 * What the Kubernetes provider is built from, read from the real emulator through the Cluster
 * provider: refreshing twice gives the identical kubeconfig text (so `pulumi refresh` cannot
 * make the Kubernetes provider, or what it deployed, change); a rotated credential gives the
 * Cluster a new text, but the Kubernetes provider's inputs stay the same: its kubeconfig fetches
 * the credential through the exec plugin instead of holding it.
 */
import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../packages/emulator/src";
import { kubernetesProviderArgs } from "../../src/kubernetes";
import { clusterProvider } from "../../src/hosts/dynamic/cluster-provider";
import { resetProcess } from "../support/process";

let emu: RunningEmulator;

beforeAll(async () => {
  resetProcess();
  emu = await startEmulator({ port: 0, provisionSeconds: 0.3, scaleSeconds: 0.2, deleteSeconds: 0.2 });
  resetProcess({ env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token } });
});
afterAll(async () => {
  resetProcess();
  await emu.close();
});

/** The Kubernetes provider's inputs for a cluster state, resolved. */
async function providerInputs(id: string, props: Record<string, unknown>) {
  const args = kubernetesProviderArgs({ id: pulumi.output(id), kubeconfig: pulumi.output(String(props.kubeconfig)) } as any);
  return new Promise<Record<string, unknown>>((resolve) => pulumi.output(args).apply((v) => resolve(v as Record<string, unknown>)));
}

describe("kubeconfig of a cluster, as the Kubernetes provider gets it", () => {
  it("is the cluster's kubeconfig: its server (the emulator's stand-in, without --kubernetes) and token", async () => {
    const created = await clusterProvider.create({ name: "k8s-kc", controlPlanes: 1, workers: 1, nodeSize: "small", phase: "managed" });
    const kc = parse(String(created.outs.kubeconfig));
    const context = kc.contexts.find((c: any) => c.name === kc["current-context"]).context;
    const cluster = kc.clusters.find((c: any) => c.name === context.cluster).cluster;
    const user = kc.users.find((u: any) => u.name === context.user).user;
    expect(cluster.server).toBe(`${emu.url}/_no-kubernetes/${created.id}`);
    expect(user.token).toMatch(/^kc_/);
  });

  it("is identical text after two refreshes, so the provider's inputs do not change", async () => {
    const { id, outs } = await clusterProvider.create({
      name: "k8s-steady",
      controlPlanes: 1,
      workers: 1,
      nodeSize: "small",
      phase: "managed",
    });
    const first = await clusterProvider.read(id, outs);
    const second = await clusterProvider.read(id, first.props);
    expect(first.props!.kubeconfig).toBe(outs.kubeconfig);
    expect(second.props!.kubeconfig).toBe(outs.kubeconfig);
    expect(await providerInputs(id, second.props!)).toEqual(await providerInputs(id, outs));
  });

  it("changes for the Cluster when the credentials rotate, and not for the Kubernetes provider", async () => {
    const { id, outs } = await clusterProvider.create({
      name: "k8s-rotate",
      controlPlanes: 1,
      workers: 1,
      nodeSize: "small",
      phase: "managed",
    });
    await emu.control.rotateKubeconfig(id);
    const after = await clusterProvider.read(id, outs);
    expect(after.props!.kubeconfig).not.toBe(outs.kubeconfig);
    const before = await providerInputs(id, outs);
    const now = await providerInputs(id, after.props!);
    expect(now).toEqual(before);
    expect(now.clusterIdentifier).toBe(id);
    // And it is stable again from then on.
    expect((await clusterProvider.read(id, after.props)).props!.kubeconfig).toBe(after.props!.kubeconfig);
  });
});
