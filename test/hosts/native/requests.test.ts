/**
 * The native plugin reads each engine request into the core's typed request: the program's
 * inputs reach check as they came (a wrong one is a check failure), and what later calls carry is
 * held to the fields' declaration, a wrong type failing the call naming the property and the rule.
 */
import { CLUSTER_FIELDS, clusterArguments } from "@pulumi-cms/contract";
import { describe, expect, it } from "vitest";
import { providerHandlers } from "../../../src/hosts/native/handlers";
import { secret } from "../../../src/hosts/native/properties";
import {
  checkRequest,
  createRequest,
  deleteRequest,
  diffRequest,
  invokeRequest,
  readRequest,
  type StructLike,
  updateRequest,
} from "../../../src/hosts/native/requests";
import { pulumiGrpc } from "../../../src/hosts/pulumi-grpc";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { newHostRuntime } from "../../../src/hosts/process";

const URN = "urn:pulumi:dev::clusters::cms:index:Cluster::cluster";
const CHECKED = { name: "cluster-abc1234", controlPlanes: 1, workers: 2, nodeSize: "small", phase: "managed" };
const RECORDED = { ...CHECKED, status: "running", nodeCount: 3, kubeconfig: "apiVersion: v1" };

const struct = (value: Record<string, unknown> | undefined): StructLike | undefined =>
  value && { toJavaScript: () => structuredClone(value) };

type Bag = Record<string, unknown>;

/** An engine request with these members (the stubs' getters). */
function rpc(members: {
  olds?: Bag;
  news?: Bag;
  oldInputs?: Bag;
  properties?: Bag;
  inputs?: Bag;
  args?: Bag;
  tok?: string;
  preview?: boolean;
  timeout?: number;
}) {
  return {
    getUrn: () => URN,
    getType: () => "cms:index:Cluster",
    getId: () => "cls_0123456789abcdef",
    getTimeout: () => members.timeout ?? 0,
    getPreview: () => members.preview === true,
    getOlds: () => struct(members.olds),
    getNews: () => struct(members.news),
    getOldInputs: () => struct(members.oldInputs),
    getProperties: () => struct(members.properties),
    getInputs: () => struct(members.inputs),
    getArgs: () => struct(members.args),
    getTok: () => members.tok ?? "",
  };
}

describe("the native plugin's requests", () => {
  it("hands check the program's values as they came, so a wrong one stays the check failure users see", async () => {
    const seen = new Set<string>();
    const { request } = checkRequest(rpc({ news: { workers: "3", nodeSize: 7 } }), seen, undefined);
    expect(request.news).toEqual({ workers: "3", nodeSize: 7 });

    const { provider: proto, struct: pb } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
    const checked = await handlers.check(
      new proto.CheckRequest()
        .setUrn(URN)
        .setType("cms:index:Cluster")
        .setNews(
          pb.Struct.fromJavaScript({
            name: "c1",
            controlPlanes: 1,
            workers: "3",
            nodeSize: "small",
            connection: { endpoint: "http://127.0.0.1:1", token: "t" },
          }),
        ),
    );
    expect(checked.getFailuresList().map((f: { getReason(): string }) => f.getReason())).toEqual([
      'workers must be an integer of at least 1, got "3"',
    ]);
  });

  it("reads a create's checked inputs, its timeout and its preview; unknowns only in a preview", () => {
    const { request } = createRequest(rpc({ properties: CHECKED, timeout: 90 }), new Set());
    expect(request).toEqual({ urn: URN, timeouts: { create: "90s" }, preview: false, inputs: CHECKED });

    const previewed = { ...CHECKED, workers: UNKNOWN, connection: { token: UNKNOWN } };
    expect(createRequest(rpc({ properties: previewed, preview: true }), new Set()).request.inputs).toEqual(previewed);
    expect(() => createRequest(rpc({ properties: previewed }), new Set())).toThrow(
      "the engine's Create request: properties.workers is unknown outside a preview: it must be an integer",
    );
  });

  it("refuses a value of another type than the declaration's, naming the property and the rule, never the value", () => {
    const seen = new Set<string>();
    const bad = { ...CHECKED, nodeSize: "huge", connection: { endpoint: "https://cms.example.com", token: secret(12345) } };
    expect(() => createRequest(rpc({ properties: bad }), seen)).toThrow(
      "the engine's Create request: properties.nodeSize must be one of small, medium, large, xlarge, got a string",
    );
    const badToken = { ...CHECKED, connection: { token: secret(12345) } };
    const refusal = () => updateRequest(rpc({ olds: RECORDED, news: badToken }), seen);
    expect(refusal).toThrow("the engine's Update request: news.connection must be an object of strings endpoint and token, got an object");
    expect(refusal).not.toThrow("12345");
    expect(() => diffRequest(rpc({ olds: { ...RECORDED, workers: "2" }, news: CHECKED }), seen)).toThrow(
      "the engine's Diff request: olds.workers must be an integer, got a string",
    );
    expect(() => createRequest(rpc({ properties: { ...CHECKED, __autonamed: "yes" } }), seen)).toThrow(
      "the engine's Create request: properties.__autonamed must be a boolean, got a string",
    );
    const { phase: _phase, ...noPhase } = CHECKED;
    expect(() => createRequest(rpc({ properties: noPhase }), seen)).toThrow(
      "the engine's Create request: properties.phase is missing: it must be one of managed, onpremise, baremetal",
    );
  });

  it("holds every argument of the declaration to its rule, none listed by hand", () => {
    for (const name of clusterArguments()) {
      const bag = { ...CHECKED, [name]: [1] };
      expect(() => createRequest(rpc({ properties: bag }), new Set()), name).toThrow(
        `the engine's Create request: properties.${name} must be `,
      );
    }
    for (const name of Object.keys(CLUSTER_FIELDS).filter((n) => "output" in CLUSTER_FIELDS[n as keyof typeof CLUSTER_FIELDS])) {
      expect(() => deleteRequest(rpc({ properties: { ...RECORDED, [name]: [1] } }), new Set()), name).toThrow(
        `the engine's Delete request: properties.${name} must be `,
      );
    }
  });

  it("keeps what the state holds as it is: a status the service did not document, null for an absent value, properties of other releases", () => {
    const olds = { ...RECORDED, status: "hibernating", infraId: null, __urn: URN };
    const { request } = updateRequest(rpc({ olds, news: CHECKED, timeout: 60 }), new Set());
    expect(request).toEqual({ id: "cls_0123456789abcdef", urn: URN, olds, news: CHECKED, timeouts: { update: "60s" }, preview: false });
  });

  it("remembers every secret a request held before any rule refuses it, so no message shows it", () => {
    const seen = new Set<string>();
    expect(() => diffRequest(rpc({ olds: RECORDED, news: { ...CHECKED, name: secret("secret-name"), workers: "2" } }), seen)).toThrow();
    expect(seen).toEqual(new Set(["secret-name"]));
  });

  it("reads `pulumi import` (no properties) as a lookup, and a refresh with its recorded inputs", () => {
    expect(readRequest(rpc({}), new Set())).toMatchObject({ importing: true, request: { state: {}, lookup: "pulumi import" } });
    const refresh = readRequest(rpc({ properties: RECORDED, inputs: CHECKED }), new Set());
    expect(refresh).toMatchObject({ importing: false, oldInputs: CHECKED, request: { state: RECORDED, lookup: undefined } });
  });

  it("refuses another resource type, and an invoke's connection that is not an object of strings", () => {
    expect(() => createRequest({ ...rpc({ properties: CHECKED }), getType: () => "cms:index:Other" }, new Set())).toThrow(
      "unknown resource type cms:index:Other: this plugin serves cms:index:Cluster",
    );
    const invoke = (args: Record<string, unknown>) => invokeRequest(rpc({ tok: "cms:index:getCluster", args }), new Set());
    expect(() => invoke({ id: "cls_1", connection: { token: 5 } })).toThrow(
      "getCluster: connection.token must be a string, got an integer",
    );
    expect(() => invoke({ id: "cls_1", connection: "x" })).toThrow("getCluster: connection must be an object, got a string");
    expect(invoke({ id: "cls_1", connection: { endpoint: "https://cms.example.com", token: " " } }).explicit).toEqual({
      endpoint: "https://cms.example.com",
    });
  });
});
