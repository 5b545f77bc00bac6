/**
 * The Cluster resource class under Pulumi's test mocks: what it registers (inputs, hidden inputs,
 * secrets, options) and what it exposes. The provider itself is tested in test/provider.
 */
import * as pulumi from "@pulumi/pulumi";
import * as rpc from "@pulumi/pulumi/runtime/rpc";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Cluster } from "../../src/resources";
import { CLUSTER_TYPE, SEED_TYPE } from "../../src/resources/type-token";
import { CLUSTER_FIELDS, clusterFieldsWhere, type Field } from "@pulumi-cms/contract";
import { outputValue } from "../support/outputs";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, any>;
  id?: string;
}
const registered: Registered[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs, id: args.id });
        if (args.type === SEED_TYPE) return { id: SEED, state: { value: SEED } };
        const id = args.id || "cls_00000000000000aa";
        const plain = Object.fromEntries(Object.entries(args.inputs).filter(([k]) => !k.startsWith("__") && k !== "connection"));
        return { id, state: { ...plain, status: "running", kubeconfig: "apiVersion: v1\n" } };
      },
      call: () => ({}),
    },
    "proj",
    "dev",
    false,
  );
});
beforeEach(() => {
  registered.length = 0;
});
const SEED = "5eed5eed5eed5eed5eed5eed5eed5eed";
/** The Clusters registered (the stack's auto-name seed is registered too, before the first auto-named one). */
const clusters = () => registered.filter((r) => r.type === CLUSTER_TYPE);

const registration = async (c: Cluster) => {
  await outputValue(c.urn);
  await outputValue(c.id);
};

describe("Cluster", () => {
  it("registers its inputs with the hidden URN and the type token", async () => {
    const c = new Cluster("prod", { controlPlanes: 3, workers: 2, nodeSize: "large", phase: "onpremise", infraId: "dc-1" });
    await registration(c);
    const [r] = clusters();
    expect(r.type).toBe(CLUSTER_TYPE);
    expect(r.type).toBe("pulumi-nodejs:dynamic/cms:Cluster");
    expect(r.inputs).toMatchObject({ controlPlanes: 3, workers: 2, nodeSize: "large", phase: "onpremise", infraId: "dc-1" });
    expect(r.inputs.__urn).toBe("urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::prod");
    expect(r.inputs.__urn).toBe(await outputValue(c.urn));
    expect(r.inputs).not.toHaveProperty("name"); // auto-named by the provider's check
    expect(typeof r.inputs.__provider).toBe("string");
  });

  it("an auto-named Cluster carries the stack's seed, registered once per program; a named one carries none", async () => {
    const a = new Cluster("auto-a", { controlPlanes: 1, workers: 1, nodeSize: "small" });
    const b = new Cluster("auto-b", { controlPlanes: 1, workers: 1, nodeSize: "small" });
    const named = new Cluster("named", { name: "mine", controlPlanes: 1, workers: 1, nodeSize: "small" });
    await Promise.all([a, b, named].map(registration));
    const seeds = registered.filter((r) => r.type === SEED_TYPE);
    // Once per program run: an earlier test of this file may have registered it already.
    expect(seeds.length).toBeLessThanOrEqual(1);
    const byName = Object.fromEntries(clusters().map((r) => [r.name, r.inputs]));
    expect(byName["auto-a"].__seed).toBe(SEED);
    expect(byName["auto-b"].__seed).toBe(SEED);
    expect(byName.named).not.toHaveProperty("__seed");
  });

  it("computes the URN under a parent component", async () => {
    const parent = new pulumi.ComponentResource("my:infra:Platform", "platform");
    const c = new Cluster("child", { controlPlanes: 1, workers: 1, nodeSize: "small" }, { parent });
    await registration(c);
    const child = clusters().find((r) => r.name === "child")!;
    expect(child.inputs.__urn).toBe("urn:pulumi:dev::proj::my:infra:Platform$pulumi-nodejs:dynamic/cms:Cluster::child");
    expect(child.inputs.__urn).toBe(await outputValue(c.urn));
  });

  it("carries customTimeouts as the hidden __timeouts input", async () => {
    const c = new Cluster(
      "timed",
      { controlPlanes: 1, workers: 1, nodeSize: "small" },
      { customTimeouts: { create: "45m", delete: "5m" } },
    );
    await registration(c);
    expect(clusters()[0].inputs.__timeouts).toEqual({ create: "45m", delete: "5m" });
  });

  it("makes an explicit token a secret and keeps it out of the serialized provider", async () => {
    const token = "tok-explicit-resource-secret";
    const c = new Cluster("conn", {
      controlPlanes: 1,
      workers: 1,
      nodeSize: "small",
      connection: { endpoint: "http://127.0.0.1:8787", token },
    });
    await registration(c);
    const { connection, __provider } = clusters()[0].inputs;
    // The SDK hoists the token's secretness to the whole connection object: all of it is encrypted.
    expect(rpc.isRpcSecret(connection)).toBe(true);
    expect(rpc.unwrapRpcSecret(connection)).toEqual({ endpoint: "http://127.0.0.1:8787", token });
    expect(__provider).not.toContain(token);
  });

  it("exposes the outputs, with the kubeconfig secret", async () => {
    const c = new Cluster("out", { name: "named", controlPlanes: 1, workers: 4, nodeSize: "medium" });
    expect(await outputValue(c.id)).toBe("cls_00000000000000aa");
    expect(await outputValue(c.name)).toBe("named");
    expect(await outputValue(c.workers)).toBe(4);
    expect(await outputValue(c.status)).toBe("running");
    expect(await pulumi.isSecret(c.kubeconfig)).toBe(true);
    expect(await outputValue(c.kubeconfig)).toContain("apiVersion");
    expect(Cluster.isInstance(c)).toBe(true);
    expect(Cluster.isInstance({})).toBe(false);
  });

  it("has an Output for every output of the contract's fields.ts but the connection, secret where the field is", async () => {
    const c = new Cluster("every", { name: "every", controlPlanes: 1, workers: 1, nodeSize: "small" });
    // The connection is kept from the program: it holds the token.
    const outputs = clusterFieldsWhere((f) => f.output !== undefined).filter((k) => k !== "connection");
    for (const key of outputs) {
      const output = (c as unknown as Record<string, unknown>)[key];
      expect(pulumi.Output.isInstance(output), key).toBe(true);
      expect(await pulumi.isSecret(output as pulumi.Output<unknown>), key).toBe((CLUSTER_FIELDS[key] as Field).secret === true);
    }
  });

  it("turns the import option into the hidden __import input (the engine's import cannot load a dynamic provider)", async () => {
    const c = new Cluster("adopt", { name: "legacy", controlPlanes: 3, workers: 2, nodeSize: "large" }, { import: "cls_0123456789abcdef" });
    await registration(c);
    expect(registered[0].inputs.__import).toBe("cls_0123456789abcdef");
    expect(registered[0].id).toBe(""); // no engine-side import
  });

  it("Cluster.get reads by id with only the connection and hidden inputs, marked as a lookup", async () => {
    const c = Cluster.get("existing", "cls_0123456789abcdef", { connection: { token: "tok-get-secret" } });
    expect(await outputValue(c.id)).toBe("cls_0123456789abcdef");
    const [r] = registered;
    expect(r.id).toBe("cls_0123456789abcdef");
    expect(Object.keys(r.inputs).sort()).toEqual(["__get", "__provider", "__urn", "connection"]);
    expect(r.inputs.__get).toBe(true);
    expect(rpc.isRpcSecret(r.inputs.connection)).toBe(true);
  });
});
