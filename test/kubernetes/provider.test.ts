/**
 * `kubernetesProvider(cluster)` under Pulumi's mocks: what the Kubernetes provider is
 * registered with (secret kubeconfig, defaults, options), as the engine would receive it.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Cluster } from "../../src/resources";
import { kubernetesProvider, kubernetesProviderArgs } from "../../src/kubernetes";
import { requireKubeconfig } from "../../src/kubernetes/provider";
import * as cms from "../../src";
import * as native from "../../dist/native"; // the SDK as shipped: its lazy requires need the compiled files
import { isSerializedSecret, recordRegistrations, flushRegistrations, type Registration } from "./mocks";
import { outputValue } from "../support/outputs";
import { parse } from "yaml";

const KUBECONFIG = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "- name: c",
  "  cluster: { server: https://127.0.0.1:6443 }",
  "users:",
  "- name: admin",
  "  user:",
  "    token: tok-in-kubeconfig",
  "contexts:",
  "- name: admin@c",
  "  context: { cluster: c, user: admin }",
  "current-context: admin@c",
  "",
].join("\n");
/** The exec plugin of the user of a kubeconfig text. */
const execOf = (text: unknown) => parse(String(text)).users[0].user.exec;
let log: Registration[] = [];

beforeAll(async () => {
  log = await recordRegistrations((args) =>
    args.type === "pulumi-nodejs:dynamic/cms:Cluster" || args.type === "cms:index:Cluster"
      ? { id: `cls_${args.name.padEnd(16, "0").slice(0, 16)}`, state: { ...args.inputs, kubeconfig: KUBECONFIG } }
      : { state: args.inputs },
  );
});
beforeEach(() => {
  log.length = 0;
});

const newCluster = (name: string) => new Cluster(name, { controlPlanes: 1, workers: 1, nodeSize: "small" });
const providerOf = async (p: pulumi.ProviderResource) => {
  const urn = await outputValue(p.urn);
  await flushRegistrations();
  const r = log.find((x) => x.urn === urn);
  expect(r?.type).toBe("pulumi:providers:kubernetes");
  return r!;
};

describe("kubernetesProvider", () => {
  it("is exported by the package", () => {
    expect(cms.kubernetesProvider).toBe(kubernetesProvider);
  });

  it("returns a @pulumi/kubernetes Provider named after the cluster, child of the cluster", async () => {
    const cluster = newCluster("prod");
    const p = kubernetesProvider(cluster);
    expect(k8s.Provider.isInstance(p)).toBe(true);
    const r = await providerOf(p);
    const c = log.find((x) => x.name === "prod")!;
    expect(r.name).toBe("prod-k8s");
    expect(r.parent).toBe(c.urn);
    expect(r.urn).toBe("urn:pulumi:dev::project::pulumi-nodejs:dynamic/cms:Cluster$pulumi:providers:kubernetes::prod-k8s");
  });

  it("passes the kubeconfig as a secret, identifies the cluster by id and turns server-side apply on", async () => {
    const r = await providerOf(kubernetesProvider(newCluster("sec")));
    expect(isSerializedSecret(r.raw.kubeconfig)).toBe(true);
    // The cluster's kubeconfig with the exec credential plugin in place of its static token.
    const kubeconfig = (r.raw.kubeconfig as { value: unknown }).value;
    expect(kubeconfig).not.toContain("tok-in-kubeconfig");
    expect(execOf(kubeconfig)).toMatchObject({
      command: "node",
      args: expect.arrayContaining(["exec-credential", "cls_sec0000000000000"]),
    });
    expect(r.inputs.clusterIdentifier).toBe("cls_sec0000000000000");
    expect(r.inputs.enableServerSideApply).toBe("true");
    // Left unset so PULUMI_K8S_DELETE_UNREACHABLE and friends keep working.
    expect(r.inputs).not.toHaveProperty("deleteUnreachable");
    expect(r.inputs).not.toHaveProperty("namespace");
  });

  it("records an explicit connection of the cluster: its endpoint as an argument, its token in the secret kubeconfig", async () => {
    const cluster = new Cluster("explicit", {
      controlPlanes: 1,
      workers: 1,
      nodeSize: "small",
      connection: { endpoint: "https://cms.example.com/v1/", token: "explicit-token-1" },
    });
    const r = await providerOf(kubernetesProvider(cluster));
    expect(isSerializedSecret(r.raw.kubeconfig)).toBe(true);
    const exec = execOf((r.raw.kubeconfig as { value: unknown }).value);
    expect(exec.args.slice(-4)).toEqual(["exec-credential", "cls_explicit00000000", "--endpoint", "https://cms.example.com"]);
    expect(exec.env).toEqual([{ name: "CMS_RECORDED_TOKEN", value: "explicit-token-1" }]);
    expect(JSON.stringify(r.raw)).not.toMatch(/explicit-token-1"/); // only inside the secret envelope
  });

  it("with credential: static, passes the cluster's kubeconfig as it is (still a secret)", async () => {
    const r = await providerOf(kubernetesProvider(newCluster("static"), { credential: "static" }));
    expect(isSerializedSecret(r.raw.kubeconfig)).toBe(true);
    expect((r.raw.kubeconfig as { value: unknown }).value).toBe(KUBECONFIG);
    expect(JSON.stringify(r.raw)).not.toMatch(/tok-in-kubeconfig"/); // only inside the secret envelope
  });

  it("honours its options and resource options", async () => {
    const cluster = newCluster("opt");
    const parent = new pulumi.ComponentResource("my:app:Platform", "platform");
    const r = await providerOf(
      kubernetesProvider(
        cluster,
        {
          name: "custom",
          namespace: "apps",
          deleteUnreachable: true,
          enableServerSideApply: false,
          clusterIdentifier: "blue",
          suppressDeprecationWarnings: true,
          extraArgs: { kubeClientSettings: { qps: 50 }, clusterIdentifier: "ignored" },
        },
        { parent },
      ),
    );
    expect(r.name).toBe("custom");
    expect(r.urn).toBe("urn:pulumi:dev::project::my:app:Platform$pulumi:providers:kubernetes::custom");
    expect(r.inputs).toMatchObject({
      namespace: "apps",
      deleteUnreachable: "true",
      enableServerSideApply: "false",
      clusterIdentifier: "blue",
      suppressDeprecationWarnings: "true",
    });
    expect(JSON.parse(r.inputs.kubeClientSettings)).toMatchObject({ qps: 50 });
  });

  it("takes a cluster of the native face (pulumi-cms/native) alike: exec kubeconfig, secret, child of it", async () => {
    const cluster = new native.Cluster("nat", { controlPlanes: 1, workers: 1, nodeSize: "small" });
    const r = await providerOf(kubernetesProvider(cluster));
    const c = log.find((x) => x.name === "nat" && x.type === "cms:index:Cluster")!;
    expect(r.parent).toBe(c.urn);
    expect(isSerializedSecret(r.raw.kubeconfig)).toBe(true);
    const kubeconfig = (r.raw.kubeconfig as { value: unknown }).value;
    expect(kubeconfig).not.toContain("tok-in-kubeconfig");
    expect(execOf(kubeconfig).args).toEqual(expect.arrayContaining(["exec-credential", "cls_nat0000000000000"]));
    expect(r.inputs.clusterIdentifier).toBe("cls_nat0000000000000");
  });

  it("refuses a credential other than exec or static, naming the option", () => {
    expect(() => kubernetesProvider(newCluster("cred"), { credential: "token" as never })).toThrow(
      'kubernetesProvider: options.credential must be "exec" or "static", got "token"',
    );
  });

  it("refuses a kubeconfig in extraArgs", () => {
    expect(() => kubernetesProvider(newCluster("kc"), { extraArgs: { kubeconfig: "other" } })).toThrow(
      /extraArgs\.kubeconfig is not allowed/,
    );
  });
});

describe("kubernetesProviderArgs", () => {
  it.each([undefined, "", "  "])("refuses a kubeconfig of %j, naming the cluster (never the ambient one)", (kubeconfig) => {
    expect(() => requireKubeconfig(kubeconfig, "cls_missing")).toThrow(
      /^kubernetesProvider: cluster cls_missing has no kubeconfig.*~\/\.kube\/config/,
    );
    expect(requireKubeconfig("apiVersion: v1\n", "cls_x")).toBe("apiVersion: v1\n");
  });

  it("makes the kubeconfig secret even when the cluster's is not", async () => {
    const args = kubernetesProviderArgs({ id: pulumi.output("cls_x"), kubeconfig: pulumi.output(KUBECONFIG) } as any);
    const kc = args.kubeconfig as pulumi.Output<string>;
    expect(await pulumi.isSecret(kc)).toBe(true);
    expect(execOf(await outputValue(kc)).args).toContain("cls_x");
    expect(await outputValue(args.clusterIdentifier as pulumi.Output<string>)).toBe("cls_x");
    expect(args.enableServerSideApply).toBe(true);
  });

  it("is a pure function of the cluster's outputs: same credentials, same provider inputs", async () => {
    const cluster = { id: pulumi.output("cls_same"), kubeconfig: pulumi.output(KUBECONFIG) } as any;
    const resolve = async (a: Record<string, unknown>) => outputValue(pulumi.output(a));
    expect(await resolve(kubernetesProviderArgs(cluster))).toEqual(await resolve(kubernetesProviderArgs(cluster)));
  });
});
