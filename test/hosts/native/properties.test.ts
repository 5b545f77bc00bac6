import { describe, expect, it } from "vitest";
import { isSecret, markSecrets, reveal, secret, withoutPerRequest } from "../../../src/hosts/native/properties";

describe("the native plugin's property values", () => {
  it("reveals secrets at any depth and leaves other values as they are", () => {
    expect(reveal({ a: secret("x"), b: [secret({ c: secret(1) })], d: "plain" })).toEqual({ a: "x", b: [{ c: 1 }], d: "plain" });
  });

  it("marks the connection's token and the kubeconfig secret, whatever came in", () => {
    const out = markSecrets({ name: "n", kubeconfig: "apiVersion: v1", connection: { endpoint: "http://e", token: "t" } });
    expect(isSecret(out.kubeconfig)).toBe(true);
    expect(isSecret((out.connection as Record<string, unknown>).token)).toBe(true);
    expect((out.connection as Record<string, unknown>).endpoint).toBe("http://e");
    expect(out.name).toBe("n");
    expect(isSecret(markSecrets({ kubeconfig: secret("k") }).kubeconfig)).toBe(true);
    expect(reveal(markSecrets({ kubeconfig: secret("k") }).kubeconfig)).toBe("k");
  });

  it("stores none of the dynamic face's per-request hidden properties", () => {
    const props = {
      name: "n",
      __urn: "u",
      __timeouts: { create: "1m" },
      __provider: "p",
      __get: true,
      __import: "cls_1",
      __inState: {},
      __autonamed: true,
      __seed: "s",
    };
    expect(withoutPerRequest(props)).toEqual({ name: "n", __autonamed: true, __seed: "s" });
    expect(Object.keys(markSecrets(props))).toEqual(["name", "__autonamed", "__seed"]);
  });
});
