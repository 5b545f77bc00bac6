/**
 * What the client lets into a path and what it takes for a kubeconfig: `idSegment` refuses every
 * id not of its shape before anything is sent, and `checkKubeconfig` takes only text that parses
 * as a kubeconfig, naming the field otherwise and quoting none of a broken kubeconfig's values.
 */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createClient } from "../../src/client";
import { type AnswerSource, checkKubeconfig, idSegment } from "../../src/client/answers";
import { ContractError, InvalidIdError } from "../../src/client/errors";
import { rejection } from "../support/rejection";

const TOKEN = "tok_answers_0123456789";
const REQUEST = "GET /v1/clusters/{cluster_id}";

/** The error `f` throws. */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("nothing was thrown");
}

describe("an id as a path segment", () => {
  it.each(["cls_0123456789abcdef", "cls_A-b_9", `cls_${"a".repeat(128)}`])("takes the cluster id %s as it is", (id) => {
    expect(idSegment("cluster", id, REQUEST, [TOKEN])).toBe(id);
  });

  it("takes a node id for a node", () => {
    expect(idSegment("node", "node_0123456789abcdef", "GET /v1/clusters/{cluster_id}/nodes/{node_id}", [])).toBe("node_0123456789abcdef");
  });

  it.each([
    "../../admin",
    "cls_",
    "cls_a/b",
    "cls_../x",
    "cls_%2e%2e",
    "cls_a?x=1",
    "cls_a#b",
    "cls_ a",
    `cls_${"a".repeat(129)}`,
    "node_0123456789abcdef",
    "",
  ])("refuses the cluster id %j, naming the request and the rule", (id) => {
    const error = thrown(() => idSegment("cluster", id, REQUEST, [TOKEN]));
    expect(error).toBeInstanceOf(InvalidIdError);
    expect((error as InvalidIdError).code).toBe("invalid_id");
    expect(error.message).toContain(`CMS API ${REQUEST}: `);
    expect(error.message).toContain("is not a cluster id (cls_ followed by 1 to 128 letters, digits, _ or -), so nothing was sent");
  });

  it("refuses a cluster id for a node", () => {
    expect(thrown(() => idSegment("node", "cls_0123456789abcdef", REQUEST, []))).toBeInstanceOf(InvalidIdError);
  });

  it.each([[undefined], [null], [42], [{ id: "cls_1" }], [["cls_1"]]])("refuses %j, which is no string", (id) => {
    expect(thrown(() => idSegment("cluster", id, REQUEST, []))).toBeInstanceOf(InvalidIdError);
  });

  it("never shows the token, even when it is the id", () => {
    const error = thrown(() => idSegment("cluster", `${TOKEN}/..`, REQUEST, [TOKEN]));
    expect(error.message).not.toContain(TOKEN);
  });
});

const FROM: AnswerSource = { method: "GET", path: "/v1/clusters/cls_1/kubeconfig", status: 200, secrets: [TOKEN] };

const kubeconfig = (change: (doc: Record<string, any>) => void = () => {}) => {
  const doc: Record<string, any> = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "web", cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": "Q0E=" } }],
    users: [{ name: "web-admin", user: { token: "kube-secret-credential" } }],
    contexts: [{ name: "admin@web", context: { cluster: "web", user: "web-admin" } }],
    "current-context": "admin@web",
  };
  change(doc);
  return stringify(doc);
};

/** The ContractError for `body`, which must not quote the kubeconfig's credentials. */
function refusal(body: string): ContractError {
  const error = thrown(() => checkKubeconfig(body, FROM));
  expect(error).toBeInstanceOf(ContractError);
  expect(error.message).toMatch(/^CMS API GET \/v1\/clusters\/cls_1\/kubeconfig answered 200 with /);
  expect(error.message).not.toContain("kube-secret-credential");
  expect(error.message).not.toContain(TOKEN);
  return error as ContractError;
}

describe("a kubeconfig answer", () => {
  it("is taken as the text it came as, when it is a kubeconfig", () => {
    const text = `# made by the service\n${kubeconfig()}`;
    expect(checkKubeconfig(text, FROM)).toBe(text);
  });

  it("may point at a plain-HTTP server and leave out what Kubernetes clients default", () => {
    const text = kubeconfig((d) => {
      d.clusters[0].cluster = { server: "http://127.0.0.1:8080/_no-kubernetes/cls_1" };
      delete d["current-context"];
      delete d.apiVersion;
    });
    expect(checkKubeconfig(text, FROM)).toBe(text);
  });

  it("refuses a 200 HTML page, quoting its start without the token", () => {
    const page = `<!doctype html>\n<html><body>Sign in ${TOKEN}</body></html>\n`;
    const error = refusal(page);
    expect(error.message).toContain("with a body that is not a kubeconfig (");
    expect(error.message).toContain("<!doctype html>");
  });

  it.each([
    ["", "an empty body where the contract has a kubeconfig", undefined],
    ["   \n", "an empty body where the contract has a kubeconfig", undefined],
    ["clusters: [\n", "a body that is not YAML where the contract has a kubeconfig", undefined],
    ['{"error":"not_found"}', 'no "clusters"', "clusters"],
    ["- a\n- b\n", "a body that is not a kubeconfig", undefined],
  ])("refuses %j: %s", (body, says, field) => {
    const error = refusal(body);
    expect(error.message).toContain(says);
    expect(error.field).toBe(field);
  });

  it.each([
    ["no clusters", (d: Record<string, any>) => delete d.clusters, 'no "clusters"', "clusters"],
    ["no users", (d: Record<string, any>) => delete d.users, 'no "users"', "users"],
    ["no contexts", (d: Record<string, any>) => delete d.contexts, 'no "contexts"', "contexts"],
    ["an empty cluster list", (d: Record<string, any>) => (d.clusters = []), 'an empty "clusters"', "clusters"],
    ["an empty user list", (d: Record<string, any>) => (d.users = []), 'an empty "users"', "users"],
    [
      "a cluster without server",
      (d: Record<string, any>) => delete d.clusters[0].cluster.server,
      'no "clusters[0].cluster.server"',
      "clusters[0].cluster.server",
    ],
    [
      "a server that is no URL",
      (d: Record<string, any>) => (d.clusters[0].cluster.server = "10.0.0.1:6443"),
      '"clusters[0].cluster.server", which is not a server URL (http:// or https:// and a host)',
      "clusters[0].cluster.server",
    ],
    ["a nameless user", (d: Record<string, any>) => delete d.users[0].name, 'no "users[0].name"', "users[0].name"],
    [
      "users as a mapping, credentials and all",
      (d: Record<string, any>) => (d.users = { admin: { token: "kube-secret-credential" } }),
      '"users" where the contract has an array',
      "users",
    ],
    [
      "a context without user",
      (d: Record<string, any>) => delete d.contexts[0].context.user,
      'no "contexts[0].context.user"',
      "contexts[0].context.user",
    ],
  ])("refuses a kubeconfig with %s, naming the field", (_what, change, says, field) => {
    const error = refusal(kubeconfig(change));
    expect(error.message).toContain(says);
    expect(error.field).toBe(field);
  });
});

describe("the client's kubeconfig download", () => {
  it("is refused when the id is not a cluster id, before anything is sent", async () => {
    // Nothing listens there: any request would fail with a network error, not an invalid id.
    const client = createClient({ endpoint: "http://127.0.0.1:9", token: TOKEN, limiter: false, retries: 0 });
    for (const id of ["../../admin", "cls_a/../../b", `cls_${"a".repeat(200)}`]) {
      const error = await rejection(client.getKubeconfig(id));
      expect(error).toBeInstanceOf(InvalidIdError);
      expect(error.message).toContain("GET /v1/clusters/{cluster_id}/kubeconfig");
    }
  });
});
