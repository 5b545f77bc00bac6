import { describe, expect, it, onTestFinished } from "vitest";
import { checkCluster, endpointProblem } from "../../../src/provider/properties/check";
import { derivedAutoName } from "../../../src/provider/naming/auto-name";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { clusterProvider, testRuntime } from "../../support/provider";

const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::prod";
const valid = { name: "prod", controlPlanes: 3, workers: 2, nodeSize: "medium" };

describe("check", () => {
  it("accepts valid inputs and fills the phase", () => {
    const r = checkCluster({}, valid);
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({ ...valid, phase: "managed" });
  });

  it("reports every broken rule, one per property, naming the rule", () => {
    const r = checkCluster({}, { name: "bad name", controlPlanes: 2, workers: 0, nodeSize: "huge", phase: "cloud" });
    expect(r.failures).toEqual([
      { property: "name", reason: expect.stringMatching(/letters, digits and hyphens/) },
      { property: "controlPlanes", reason: "controlPlanes must be 1 or 3, got 2" },
      { property: "workers", reason: "workers must be an integer of at least 1, got 0" },
      { property: "nodeSize", reason: 'nodeSize must be one of small, medium, large, xlarge, got "huge"' },
      { property: "phase", reason: 'phase must be one of managed, onpremise, baremetal, got "cloud"' },
    ]);
  });

  it("requires controlPlanes, workers and nodeSize", () => {
    const r = checkCluster({}, {}, { urn: URN });
    expect(r.failures.map((f) => f.property)).toEqual(["controlPlanes", "workers", "nodeSize"]);
    expect(r.failures[0].reason).toMatch(/required: 1 or 3/);
  });

  it.each([
    [2.5, "workers must be an integer of at least 1, got 2.5"],
    ["3", 'workers must be an integer of at least 1, got "3"'],
    [-1, "workers must be an integer of at least 1, got -1"],
  ])("rejects workers %j", (workers, reason) => {
    expect(checkCluster({}, { ...valid, workers }).failures).toEqual([{ property: "workers", reason }]);
  });

  it("rejects controlPlanes given as a string", () => {
    expect(checkCluster({}, { ...valid, controlPlanes: "3" }).failures[0].reason).toBe('controlPlanes must be 1 or 3, got "3"');
  });

  it("requires infraId unless the phase is managed", () => {
    expect(checkCluster({}, { ...valid, phase: "onpremise" }).failures).toEqual([
      { property: "infraId", reason: 'infraId is required when phase is "onpremise" (only "managed" clusters may omit it)' },
    ]);
    expect(checkCluster({}, { ...valid, phase: "baremetal", infraId: "" }).failures[0].property).toBe("infraId");
    expect(checkCluster({}, { ...valid, phase: "baremetal", infraId: "dc-1" }).failures).toEqual([]);
    expect(checkCluster({}, { ...valid, infraId: "dc-1" }).failures).toEqual([]);
  });

  it("does not judge values that are unknown during a preview", () => {
    const r = checkCluster(
      {},
      {
        name: UNKNOWN,
        controlPlanes: UNKNOWN,
        workers: UNKNOWN,
        nodeSize: UNKNOWN,
        phase: UNKNOWN,
        infraId: UNKNOWN,
        connection: { endpoint: UNKNOWN, token: UNKNOWN },
      },
    );
    expect(r.failures).toEqual([]);
    expect(r.inputs.name).toBe(UNKNOWN);
    // An unknown phase might be non-managed, but infraId is unknown too: nothing to say yet.
    expect(checkCluster({}, { ...valid, phase: UNKNOWN }).failures).toEqual([]);
  });

  describe("auto-name", () => {
    it("derives the name from the resource name and marks it", () => {
      const r = checkCluster({}, { ...valid, name: undefined }, { urn: URN });
      expect(r.inputs.name).toMatch(/^prod-[a-z0-9]{7}$/);
      expect(r.inputs.__autonamed).toBe(true);
      expect(r.failures).toEqual([]);
    });

    it("mixes in the stack's seed: twin stacks with the same URN get different names", () => {
      const a = checkCluster({}, { ...valid, name: undefined }, { urn: URN, seed: "a".repeat(32) }).inputs.name;
      const b = checkCluster({}, { ...valid, name: undefined }, { urn: URN, seed: "b".repeat(32) }).inputs.name;
      expect(a).toMatch(/^prod-[a-z0-9]{7}$/);
      expect(a).not.toBe(b);
      expect(a).toBe(derivedAutoName(URN, 0, "a".repeat(32)));
    });

    it("an unknown seed (a brand-new stack's preview) leaves the name unknown", () => {
      const r = checkCluster({}, { ...valid, name: undefined }, { urn: URN, seed: UNKNOWN });
      expect(r.inputs.name).toBe(UNKNOWN);
      expect(r.inputs.__autonamed).toBe(true);
      expect(r.failures).toEqual([]);
    });

    it("a damaged seed fails, naming it", () => {
      const r = checkCluster({}, { ...valid, name: undefined }, { urn: URN, seed: "not-a-seed" });
      expect(r.failures).toEqual([{ property: "name", reason: expect.stringContaining("__seed") }]);
    });

    it("keeps a 0.2.0 auto-name (no seed) when the stack has a seed now: no rename", () => {
      const legacy = checkCluster({}, { ...valid, name: undefined }, { urn: URN }).inputs;
      expect(legacy.name).toBe(derivedAutoName(URN, 0));
      const later = checkCluster(legacy, { ...valid, name: undefined }, { urn: URN, seed: "c".repeat(32) }).inputs;
      expect(later.name).toBe(legacy.name);
    });

    it("keeps the previous auto-name, so previews and updates are stable", () => {
      const first = checkCluster({}, { ...valid, name: undefined }, { urn: URN }).inputs;
      const second = checkCluster(first, { ...valid, workers: 5, name: undefined }, { urn: URN }).inputs;
      expect(second.name).toBe(first.name);
      expect(second.__autonamed).toBe(true);
    });

    it("does not take over a previous explicit name", () => {
      const r = checkCluster({ ...valid, phase: "managed" }, { ...valid, name: undefined }, { urn: URN });
      expect(r.inputs.name).not.toBe("prod");
      expect(r.inputs.name).toMatch(/^prod-/);
    });

    it("drops the marker once the user names the cluster", () => {
      const r = checkCluster({ name: "prod-abcdefg", __autonamed: true }, { ...valid, name: "mine", __autonamed: true });
      expect(r.inputs.name).toBe("mine");
      expect(r.inputs.__autonamed).toBeUndefined();
    });

    it("falls back to 'cluster' without a URN", () => {
      expect(checkCluster({}, { ...valid, name: undefined }).inputs.name).toMatch(/^cluster-[a-z0-9]{7}$/);
    });
  });

  it("validates an explicit connection without echoing the token", () => {
    const secret = "tok-very-secret";
    const r = checkCluster({}, { ...valid, connection: { endpoint: "ftp://x", token: "  " } });
    expect(r.failures).toEqual([
      { property: "connection.endpoint", reason: 'connection.endpoint must use http or https, got "ftp:"' },
      { property: "connection.token", reason: "connection.token must not be empty" },
    ]);
    const ok = checkCluster({}, { ...valid, connection: { endpoint: "http://127.0.0.1:8080", token: secret } });
    expect(ok.failures).toEqual([]);
    const bad = checkCluster({}, { ...valid, connection: { endpoint: `https://u:${secret}@h`, token: 7 } });
    expect(JSON.stringify(bad.failures)).not.toContain(secret);
  });

  it("validates the customTimeouts option", () => {
    expect(checkCluster({}, valid, { timeouts: { create: "30" } }).failures).toEqual([
      { property: "customTimeouts.create", reason: expect.stringMatching(/number followed by a unit/) },
    ]);
    expect(checkCluster({}, valid, { timeouts: { create: "45m", delete: "1h" } }).failures).toEqual([]);
  });

  it("keeps inputs free of undefined members (the Struct encoder rejects them)", () => {
    const r = checkCluster({}, { ...valid, infraId: undefined, connection: { endpoint: undefined, token: "t" } });
    expect(Object.values(r.inputs)).not.toContain(undefined);
    expect(r.inputs.connection).toEqual({ token: "t" });
  });

  it("the provider's check fails without an endpoint or token, naming every way to set them, as create would", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: {} };
    try {
      await expect(clusterProvider.check({}, { ...valid, __urn: URN })).rejects.toThrow(
        /No Cluster Management Service endpoint is configured: .*pulumi config set cms:endpoint <url>.*CMS_ENDPOINT/,
      );
      runtime.settings = { env: { CMS_ENDPOINT: "https://cms.example.com" } };
      await expect(clusterProvider.check({}, { ...valid, __urn: URN })).rejects.toThrow(
        /No Cluster Management Service token is configured/,
      );
      // A connection computed from other resources is judged once it is known.
      const unknown = await clusterProvider.check({}, { ...valid, __urn: URN, connection: { endpoint: UNKNOWN, token: UNKNOWN } });
      expect(unknown.failures).toEqual([]);
    } finally {
      runtime.settings = previous;
    }
  });

  it("the provider's check also requires a name when importing", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: { CMS_ENDPOINT: "https://cms.example.com", CMS_TOKEN: "tok-check-0123" } };
    onTestFinished(() => {
      runtime.settings = previous;
    });
    const r = await clusterProvider.check({}, { ...valid, name: undefined, __import: "cls_0123456789abcdef", __urn: URN });
    expect(r.failures).toEqual([
      { property: "name", reason: "name is required with the import option: set it to the existing cluster's name" },
    ]);
    const ok = await clusterProvider.check({}, { ...valid, __import: "cls_0123456789abcdef" });
    expect(ok.failures).toEqual([]);
  });

  it("refuses an import id that is not of the cluster id's shape, before any API call", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: { CMS_ENDPOINT: "https://cms.example.com", CMS_TOKEN: "tok-check-0123" } };
    onTestFinished(() => {
      runtime.settings = previous;
    });
    const r = await clusterProvider.check({}, { ...valid, __import: "../../admin" });
    expect(r.failures).toEqual([
      {
        property: "import",
        reason:
          'the import option must be the id of an existing cluster (cls_ followed by 1 to 128 letters, digits, _ or -), got "../../admin"',
      },
    ]);
  });
});

describe("endpointProblem", () => {
  it.each([
    ["https://cms.example.com", undefined],
    ["http://127.0.0.1:8787", undefined],
    ["", /non-empty URL/],
    ["cms.example.com", /absolute http\(s\) URL/],
  ])("%j", (endpoint, expected) => {
    const p = endpointProblem(endpoint);
    if (expected === undefined) expect(p).toBeUndefined();
    else expect(p).toMatch(expected);
  });
});
