/**
 * The dynamic face's hidden inputs are its host's translation: the core's check sees none of them
 * by name, and the inputs the dynamic provider returns hold them where its state always has (the
 * state of every release must load, and a new state must load in the next release).
 */
import { describe, expect, it } from "vitest";
import { createClusterProvider } from "../../../src/hosts/dynamic/cluster-provider";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { newHostRuntime } from "../../../src/hosts/process";

const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::prod";
const SEED = "0123456789abcdef0123456789abcdef";
const shape = { controlPlanes: 3, workers: 2, nodeSize: "medium", phase: "managed" };
const env = { CMS_ENDPOINT: "https://cms.example.com", CMS_TOKEN: "tok-requests-0123" };

describe("the dynamic provider's check", () => {
  it("records the hidden inputs of a create as the state always has, consuming the program's read of the state", async () => {
    const provider = createClusterProvider({ env }, newHostRuntime());
    const news = {
      ...shape,
      __urn: URN,
      __timeouts: { create: "45m" },
      __seed: SEED,
      __provider: "exports.x = 1",
      __inState: { name: "prod-gone" },
    };
    const { inputs, failures } = await provider.check({}, news);
    expect(failures).toEqual([]);
    expect(inputs).toEqual({
      ...shape,
      name: expect.stringMatching(/^prod-[a-z0-9]{7}$/),
      __autonamed: true,
      __seed: SEED,
      __requestedAt: expect.any(String),
      __urn: URN,
      __timeouts: { create: "45m" },
      __provider: "exports.x = 1",
    });
  });

  it("keeps the import id for a create and drops it for a resource in the state", async () => {
    const provider = createClusterProvider({ env }, newHostRuntime());
    const news = { ...shape, name: "prod", __urn: URN, __import: "cls_0123456789abcdef" };
    expect((await provider.check({}, news)).inputs).toMatchObject({ __import: "cls_0123456789abcdef", __urn: URN });
    const inState = await provider.check({ ...shape, name: "prod", __urn: URN }, news);
    expect(inState.inputs).not.toHaveProperty("__import");
    expect(inState.inputs).not.toHaveProperty("__requestedAt");
  });

  it("derives the auto-name the state records anew when the program shows it (`__nameFromState`)", async () => {
    const provider = createClusterProvider({ env }, newHostRuntime());
    const first = await provider.check({}, { ...shape, __urn: URN, __seed: SEED });
    const shown = { ...shape, name: "someone-else", __nameFromState: true, __urn: URN, __seed: SEED };
    const again = await provider.check(first.inputs, shown);
    expect(again.inputs.name).toBe(first.inputs.name);
    expect(again.inputs).not.toHaveProperty("__nameFromState");
  });

  it("checks the customTimeouts and import options it carries, naming them", async () => {
    const provider = createClusterProvider({ env }, newHostRuntime());
    const { failures } = await provider.check({}, { ...shape, name: "prod", __timeouts: { create: "soon" }, __import: UNKNOWN });
    expect(failures).toEqual([{ property: "customTimeouts.create", reason: expect.stringContaining("customTimeouts.create") }]);
  });
});
