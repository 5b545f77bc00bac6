import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { canonicalJson, chooseKubeconfig, kubeconfigIdentity } from "../../../src/provider/properties/kubeconfig";

const doc = (token: string, server = "https://10.0.0.1:6443") => ({
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "prod", cluster: { server, "certificate-authority-data": "Q0E=" } }],
  users: [{ name: "prod-admin", user: { token } }],
  contexts: [{ name: "admin@prod", context: { cluster: "prod", user: "prod-admin" } }],
  "current-context": "admin@prod",
});

describe("kubeconfig stability", () => {
  const original = stringify(doc("t1"));

  it("keeps the stored text when the fresh download is identical", () => {
    expect(chooseKubeconfig(original, stringify(doc("t1")))).toBe(original);
  });

  it("keeps the stored text when only formatting, order or comments differ", () => {
    const reordered = `# generated just now\n${stringify({ ...doc("t1"), preferences: {} }, { sortMapEntries: true, indent: 4 })}`;
    expect(reordered).not.toBe(original);
    expect(chooseKubeconfig(original, reordered)).toBe(original);
  });

  it("takes the fresh text when the credentials changed (rotation)", () => {
    const rotated = stringify(doc("t2"));
    expect(chooseKubeconfig(original, rotated)).toBe(rotated);
  });

  it("takes the fresh text when the server moved", () => {
    const moved = stringify(doc("t1", "https://10.9.9.9:6443"));
    expect(chooseKubeconfig(original, moved)).toBe(moved);
  });

  it("takes the fresh text when there was none or it cannot be parsed", () => {
    expect(chooseKubeconfig(undefined, original)).toBe(original);
    expect(chooseKubeconfig("{not: [yaml", original)).toBe(original);
    expect(kubeconfigIdentity("- just\n- a list")).toBeUndefined();
  });

  it("canonical JSON ignores key order", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } })).toBe('{"a":{"c":[3,{"e":2,"f":1}],"d":2},"b":1}');
  });
});
