/**
 * createClusterProvider: each provider has its own settings and stack configuration, so two in
 * one process (tests, an embedding tool) do not see each other's; the serialized provider uses
 * the default one.
 */
import { describe, expect, it } from "vitest";
import { createClusterProvider } from "../../../src/hosts/dynamic/cluster-provider";
import { newHostRuntime } from "../../../src/hosts/process";

const inputs = { controlPlanes: 1, workers: 1, nodeSize: "small", __urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/cms:Cluster::c" };

describe("createClusterProvider", () => {
  it("keeps settings and configuration per provider", async () => {
    const configuredOne = createClusterProvider({ env: {} });
    const bare = createClusterProvider({ env: {} });
    await configuredOne.configure({
      config: { get: (k: string) => ({ "cms:endpoint": "https://cms.example.com", "cms:token": "tok-factory-0123" })[k] },
    } as never);
    expect((await configuredOne.check({}, inputs)).failures).toEqual([]);
    await expect(bare.check({}, inputs)).rejects.toThrow(/No Cluster Management Service endpoint is configured/);
  });

  it("the runtime's settings are the default provider's; a provider's own settings win over them", async () => {
    const runtime = newHostRuntime({ env: { CMS_ENDPOINT: "https://cms.example.com", CMS_TOKEN: "tok-factory-0123" } });
    const byDefault = createClusterProvider(undefined, runtime);
    const other = createClusterProvider({ env: {} }, runtime);
    expect((await byDefault.check({}, inputs)).failures).toEqual([]);
    await expect(other.check({}, inputs)).rejects.toThrow(/No Cluster Management Service endpoint/);
  });
});
