import { describe, expect, it } from "vitest";
import { parseApiPath } from "../../../src/shared/domain/api-paths";

describe("reading a /v1 path", () => {
  it.each([
    ["/v1/clusters", { route: "/v1/clusters" }],
    ["/v1/clusters?page=2&per_page=100", { route: "/v1/clusters" }],
    ["/v1/clusters/cls_1", { route: "/v1/clusters/:cluster_id", clusterId: "cls_1" }],
    ["/v1/clusters/cls_1/", { route: "/v1/clusters/:cluster_id", clusterId: "cls_1" }],
    ["/v1/clusters/cls_1/kubeconfig", { route: "/v1/clusters/:cluster_id/kubeconfig", clusterId: "cls_1", sub: "kubeconfig" }],
    ["/v1/clusters/cls_1/nodes", { route: "/v1/clusters/:cluster_id/nodes", clusterId: "cls_1", sub: "nodes" }],
    [
      "/v1/clusters/cls_1/nodes/node_2",
      { route: "/v1/clusters/:cluster_id/nodes/:node_id", clusterId: "cls_1", sub: "nodes", nodeId: "node_2" },
    ],
    ["/v1/clusters/a%2Fb", { route: "/v1/clusters/:cluster_id", clusterId: "a/b" }],
    ["/v1/clusters/%E0%A4%A", { route: "/v1/clusters/:cluster_id", clusterId: "%E0%A4%A" }],
  ])("%s", (path, expected) => {
    expect(parseApiPath(path)).toEqual(expected);
  });

  it("names nothing outside /v1/clusters", () => {
    for (const path of ["/v1", "/v2/clusters", "/_emulator/clusters", "/v1/clusters/cls_1/scale", "/v1/clusters/a/nodes/b/c"]) {
      expect(parseApiPath(path)).toBeUndefined();
    }
  });
});
