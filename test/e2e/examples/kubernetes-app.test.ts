/**
 * examples/kubernetes-app under Pulumi's mocks (no Kubernetes API server here, and the
 * Kubernetes resource plugin cannot be installed): the program as compiled from the example's
 * own index.ts is run, and what it registers is checked as the engine would receive it.
 * The Kubernetes provider gets the cluster's kubeconfig, as a secret, and every app resource
 * (namespace, deployment, service) is deployed through that provider.
 */
import * as path from "node:path";
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSerializedSecret, recordRegistrations, flushRegistrations, type Registration } from "../../kubernetes/mocks";
import { outputValue } from "../../support/outputs";
import { compileExample, copyExample, removeDir } from "./workspace";

const CLUSTER_ID = "cls_0123456789abcdef";
// Not marked secret by the mock, on purpose: the provider input must be a secret anyway.
const KUBECONFIG = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "- name: apps",
  "  cluster:",
  "    server: https://0123456789abcdef.clusters.example:6443",
  "contexts:",
  "- name: apps",
  "  context:",
  "    cluster: apps",
  "    user: admin",
  "current-context: apps",
  "users:",
  "- name: admin",
  "  user:",
  "    token: kc-token-from-the-service",
  "",
].join("\n");

describe("examples/kubernetes-app (mocks)", () => {
  let dir = "";
  let log: Registration[] = [];
  let program: Record<string, unknown> = {};

  beforeAll(async () => {
    dir = copyExample("kubernetes-app");
    const compiled = await compileExample(dir, path.join(dir, "bin"));
    expect(compiled.stdout + compiled.stderr).toBe("");
    log = await recordRegistrations(
      (args) => {
        if (args.type === "pulumi-nodejs:dynamic/cms:Cluster") {
          return {
            id: CLUSTER_ID,
            state: {
              ...args.inputs,
              name: "apps-1a2b3c",
              status: "running",
              endpoint: "https://0123456789abcdef.clusters.example:6443",
              nodeCount: 3,
              kubeconfig: KUBECONFIG,
            },
          };
        }
        if (args.type.startsWith("kubernetes:")) {
          const metadata = { ...args.inputs.metadata, name: args.inputs.metadata?.name ?? `${args.name}-x1y2z3` };
          return { id: `${metadata.namespace ?? ""}/${metadata.name}`, state: { ...args.inputs, metadata } };
        }
        return { state: args.inputs };
      },
      "cms-kubernetes-app",
      "dev",
    );
    pulumi.runtime.setConfig("cms-kubernetes-app:replicas", "3");
    program = createRequire(__filename)(path.join(dir, "bin", "index.js"));
    for (const v of Object.values(program)) if (pulumi.Output.isInstance(v)) await outputValue(v);
    await flushRegistrations();
  }, 120_000);

  afterAll(() => {
    if (dir) removeDir(dir);
  });

  const one = (type: string) => {
    const found = log.filter((r) => r.type === type);
    expect(found, type).toHaveLength(1);
    return found[0];
  };

  it("registers a cluster (with the stack's auto-name seed), one Kubernetes provider and the app", () => {
    expect(log.map((r) => r.type).sort()).toEqual([
      "kubernetes:apps/v1:Deployment",
      "kubernetes:core/v1:Namespace",
      "kubernetes:core/v1:Service",
      "pulumi-nodejs:dynamic/cms:AutoNameSeed",
      "pulumi-nodejs:dynamic/cms:Cluster",
      "pulumi:providers:kubernetes",
    ]);
  });

  it("gives the Kubernetes provider the cluster's kubeconfig as a secret, its static credential replaced by the exec plugin", () => {
    const provider = one("pulumi:providers:kubernetes");
    expect(isSerializedSecret(provider.raw.kubeconfig), JSON.stringify(Object.keys(provider.raw))).toBe(true);
    const given = (provider.raw.kubeconfig as { value: string }).value;
    expect(given).toContain("server: https://0123456789abcdef.clusters.example:6443");
    expect(given).toContain("exec-credential");
    expect(given).toContain(CLUSTER_ID);
    expect(given).not.toContain("kc-token-from-the-service");
    // The kubeconfig appears nowhere else in plain text.
    const plain = JSON.stringify(
      log.map((r) => ({ ...r.raw, kubeconfig: isSerializedSecret(r.raw.kubeconfig) ? "[secret]" : r.raw.kubeconfig })),
    );
    expect(plain).not.toContain("kc-token-from-the-service");
  });

  it("ties the provider to the cluster: child of it, replaced only with it, server-side apply on", () => {
    const cluster = one("pulumi-nodejs:dynamic/cms:Cluster");
    const provider = one("pulumi:providers:kubernetes");
    expect(provider.name).toBe("apps-k8s");
    expect(provider.parent).toBe(cluster.urn);
    expect(provider.inputs.clusterIdentifier).toBe(CLUSTER_ID);
    expect(provider.inputs.enableServerSideApply).toBe("true");
    expect(provider.inputs).not.toHaveProperty("deleteUnreachable");
  });

  it("deploys every app resource through that provider", () => {
    const provider = one("pulumi:providers:kubernetes");
    const ref = `${provider.urn}::${provider.id}`;
    const app = log.filter((r) => r.type.startsWith("kubernetes:"));
    expect(app).toHaveLength(3);
    for (const r of app) expect(r.provider, r.type).toBe(ref);
  });

  it("builds the app from config and wires namespace, deployment and service together", async () => {
    const ns = one("kubernetes:core/v1:Namespace");
    const deployment = one("kubernetes:apps/v1:Deployment");
    const service = one("kubernetes:core/v1:Service");
    expect(ns.inputs.metadata.name).toBe("hello");
    expect(deployment.inputs.metadata.namespace).toBe("hello");
    expect(service.inputs.metadata.namespace).toBe("hello");
    expect(deployment.inputs.spec.replicas).toBe(3); // from stack config
    expect(deployment.inputs.spec.selector.matchLabels).toEqual(service.inputs.spec.selector);
    expect(deployment.inputs.spec.template.metadata.labels).toEqual(service.inputs.spec.selector);
    expect(await outputValue(program.url as pulumi.Output<string>)).toBe("http://hello-x1y2z3.hello.svc.cluster.local");
  });

  it("exports nothing that holds the kubeconfig", async () => {
    for (const [key, v] of Object.entries(program)) {
      const value = pulumi.Output.isInstance(v) ? await outputValue(v) : v;
      expect(JSON.stringify(value) ?? "", key).not.toContain("kc-token-from-the-service");
    }
  });
});
