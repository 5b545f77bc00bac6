import { describe, expect, it } from "vitest";
import {
  autoName,
  autoNameGeneration,
  derivedAutoName,
  isSeededAutoName,
  nextAutoNameGeneration,
  nameProblem,
  NAME_PATTERN,
  randomSuffix,
  resourceNameFromUrn,
  sanitizeNamePrefix,
} from "../../../src/provider/naming/auto-name";

describe("auto-naming", () => {
  it("appends '-' and 7 lowercase letters or digits", () => {
    const name = autoName("prod");
    expect(name).toMatch(/^prod-[a-z0-9]{7}$/);
    expect(nameProblem(name)).toBeUndefined();
  });

  it("is random from call to call", () => {
    const names = new Set(Array.from({ length: 50 }, () => autoName("x")));
    expect(names.size).toBe(50);
  });

  it("uses the injected random source", () => {
    expect(randomSuffix(() => 0)).toBe("aaaaaaa");
    expect(autoName("db", (max) => max - 1)).toBe("db-9999999");
  });

  it.each([
    ["my_cluster.prod", "my-cluster-prod"],
    ["--edge--case--", "edge-case"],
    ["über cluster!", "ber-cluster"],
    ["a  b", "a-b"],
    ["___", "cluster"],
    ["", "cluster"],
  ])("sanitises %j to %j", (input, prefix) => {
    expect(sanitizeNamePrefix(input)).toBe(prefix);
  });

  it("keeps the whole name within 63 characters", () => {
    const name = autoName("x".repeat(200));
    expect(name.length).toBe(63);
    expect(NAME_PATTERN.test(name)).toBe(true);
    // A cut that would end on a hyphen drops it.
    expect(sanitizeNamePrefix(`${"a".repeat(54)}-b`)).toBe("a".repeat(54));
  });
});

describe("derived auto-names", () => {
  const urn = "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/cms:Cluster::prod";

  it("are the resource name, '-' and 7 characters, the same in every call", () => {
    expect(derivedAutoName(urn)).toMatch(/^prod-[a-z0-9]{7}$/);
    expect(derivedAutoName(urn)).toBe(derivedAutoName(urn, 0));
    expect(nameProblem(derivedAutoName(urn))).toBeUndefined();
  });

  it("differ by stack, project, resource and generation", () => {
    const names = new Set([
      derivedAutoName(urn),
      derivedAutoName(urn.replace(":dev::", ":prod::")),
      derivedAutoName(urn.replace("::shop::", "::blog::")),
      derivedAutoName(urn.replace("::prod", "::prod2")).replace("prod2", "prod"),
      derivedAutoName(urn, 1),
      derivedAutoName(urn, 2),
    ]);
    expect(names.size).toBe(6);
  });

  it("are recognised with their generation; names not derived from the URN are not", () => {
    expect(autoNameGeneration(urn, derivedAutoName(urn, 7))).toBe(7);
    expect(autoNameGeneration(urn, "prod-abcdefg")).toBeUndefined();
    expect(autoNameGeneration(urn.replace(":dev::", ":qa::"), derivedAutoName(urn))).toBeUndefined();
  });

  it("a replacement takes the next generation; after a random 0.1.0 name, generation 0", () => {
    expect(nextAutoNameGeneration(urn, derivedAutoName(urn, 0))).toBe(1);
    expect(nextAutoNameGeneration(urn, derivedAutoName(urn, 4))).toBe(5);
    expect(nextAutoNameGeneration(urn, "prod-x1y2z3q")).toBe(0);
  });
});

describe("seeded auto-names", () => {
  const urn = "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/cms:Cluster::prod";
  const seed = "0123456789abcdef0123456789abcdef";

  it("differ from the seedless (0.2.0) name and between seeds, same URN", () => {
    const names = new Set([derivedAutoName(urn), derivedAutoName(urn, 0, seed), derivedAutoName(urn, 0, "f".repeat(32))]);
    expect(names.size).toBe(3);
    expect(derivedAutoName(urn, 0, seed)).toMatch(/^prod-[a-z0-9]{7}$/);
  });

  it("are the proof: recognised only with the seed that derived them", () => {
    expect(isSeededAutoName(urn, derivedAutoName(urn, 3, seed), seed)).toBe(true);
    expect(isSeededAutoName(urn, derivedAutoName(urn, 3), seed)).toBe(false);
    expect(isSeededAutoName(urn, derivedAutoName(urn, 3, seed), "f".repeat(32))).toBe(false);
    expect(isSeededAutoName(urn, derivedAutoName(urn, 3, seed), undefined)).toBe(false);
    expect(isSeededAutoName(urn.replace(":dev::", ":qa::"), derivedAutoName(urn, 3, seed), seed)).toBe(false);
  });

  it("a replacement takes the next generation, of a seeded or of a 0.2.0 name", () => {
    expect(nextAutoNameGeneration(urn, derivedAutoName(urn, 2, seed), seed)).toBe(3);
    expect(nextAutoNameGeneration(urn, derivedAutoName(urn, 2), seed)).toBe(3);
  });
});

describe("resourceNameFromUrn", () => {
  it("takes the name after the type", () => {
    expect(resourceNameFromUrn("urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::prod")).toBe("prod");
    expect(resourceNameFromUrn("urn:pulumi:dev::proj::my:comp$pulumi-nodejs:dynamic/cms:Cluster::a::b")).toBe("a::b");
  });
  it("rejects what is not a URN", () => {
    expect(resourceNameFromUrn(undefined)).toBeUndefined();
    expect(resourceNameFromUrn("prod")).toBeUndefined();
    expect(resourceNameFromUrn("urn:pulumi:dev::proj")).toBeUndefined();
  });
});

describe("nameProblem", () => {
  it("accepts the API's names", () => {
    expect(nameProblem("a")).toBeUndefined();
    expect(nameProblem("Prod-01")).toBeUndefined();
    expect(nameProblem("x".repeat(63))).toBeUndefined();
  });
  it("names the rule it breaks", () => {
    expect(nameProblem("")).toMatch(/1-63 characters/);
    expect(nameProblem("x".repeat(64))).toMatch(/1-63 characters long, got 64/);
    expect(nameProblem("bad_name")).toMatch(/letters, digits and hyphens/);
    expect(nameProblem(5)).toMatch(/must be a string, got number/);
  });
});
