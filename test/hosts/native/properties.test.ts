import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import {
  isSecret,
  markSecrets,
  markValues,
  reveal,
  secret,
  secretPaths,
  secretStrings,
  withoutPerRequest,
} from "../../../src/hosts/native/properties";

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

  it("finds each secret the engine sent, through objects, an array holding one whole, in any of the bags", () => {
    const news = { name: secret("n"), workers: 2, connection: { endpoint: secret("http://e"), token: secret("t") } };
    const olds = { infraId: secret("infra"), tags: ["a", secret("b")], connection: secret({ endpoint: "x" }) };
    expect(secretPaths(news, olds)).toEqual([
      ["name"],
      ["connection", "endpoint"],
      ["connection", "token"],
      ["infraId"],
      ["tags"],
      ["connection"],
    ]);
    expect(secretPaths({ name: "n", connection: { endpoint: "e" } })).toEqual([]);
    expect(secretStrings(news, olds)).toEqual(["n", "http://e", "t", "infra", "b", "x"]);
  });

  it("marks an output computed from a secret input secret too: nodeCount from workers or controlPlanes", () => {
    expect(secretPaths({ workers: secret(2) })).toEqual([["workers"], ["nodeCount"]]);
    expect(secretPaths({ controlPlanes: secret(3), workers: 1 })).toEqual([["controlPlanes"], ["nodeCount"]]);
  });

  it("marks every value that came in secret again on what goes back, and leaves the rest plain", () => {
    const paths = secretPaths({
      name: secret("n"),
      infraId: secret("i"),
      phase: secret("onpremise"),
      workers: secret(2),
      controlPlanes: 1,
      nodeSize: secret("small"),
      connection: { endpoint: secret("http://e"), token: secret("t") },
    });
    const outs = {
      name: "n",
      infraId: "i",
      phase: "onpremise",
      workers: 2,
      controlPlanes: 1,
      nodeSize: "small",
      nodeCount: 3,
      status: "running",
      endpoint: "https://k",
      kubeconfig: "k",
      connection: { endpoint: "http://e", token: "t" },
      __autonamed: false,
    };
    const marked = markSecrets(outs, paths);
    const secretKeys = Object.keys(marked).filter((k) => isSecret(marked[k]));
    expect(secretKeys.sort()).toEqual(["infraId", "kubeconfig", "name", "nodeCount", "nodeSize", "phase", "workers"]);
    const connection = marked.connection as Record<string, unknown>;
    expect(isSecret(connection.endpoint) && isSecret(connection.token)).toBe(true);
    expect(reveal(marked)).toEqual(outs);
    // The caller's objects are not changed.
    expect(outs.connection.endpoint).toBe("http://e");
  });

  it("marks a whole object secret when it came in secret, and a preview's unknown as a secret unknown", () => {
    const marked = markSecrets(
      { connection: { endpoint: "http://e", token: "t" }, nodeCount: UNKNOWN },
      secretPaths({ connection: secret({ endpoint: "http://e" }), workers: secret(1) }),
    );
    expect(isSecret(marked.connection)).toBe(true);
    expect(reveal(marked.connection)).toEqual({ endpoint: "http://e", token: "t" });
    expect(marked.nodeCount).toEqual(secret(UNKNOWN));
  });

  it("marks nothing a path names that the properties do not have", () => {
    expect(markSecrets({ name: "n" }, [["infraId"], ["connection", "token"]])).toEqual({ name: "n" });
  });

  it("marks each value a program gave as a secret wherever a lookup's answer repeats it", () => {
    const answer = { clusters: [{ id: "cls_1", name: "hidden", infraId: "infra", workers: 2 }], status: "running" };
    const marked = markValues(answer, new Set(["hidden", "infra"])) as typeof answer;
    expect(isSecret(marked.clusters[0].name) && isSecret(marked.clusters[0].infraId)).toBe(true);
    expect([marked.clusters[0].id, marked.clusters[0].workers, marked.status]).toEqual(["cls_1", 2, "running"]);
    expect(reveal(marked)).toEqual(answer);
  });
});
