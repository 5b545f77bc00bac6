import { describe, expect, it } from "vitest";
import { errorFromResponse, networkErrorFrom } from "../../src/client";
import { pulumiAdvice, safeMessage } from "../../src/connection";

const apiError = (status: number, path: string, method = "GET") =>
  errorFromResponse({ status, body: JSON.stringify({ error: "x", message: "no" }), method, path, secrets: [] });

describe("messages a Pulumi user sees", () => {
  it("redacts secrets from messages", () => {
    expect(safeMessage(new Error("Bearer s3cr3t-token"), ["s3cr3t-token", undefined])).toBe("Bearer [secret]");
  });

  it("tells how to set the token in Pulumi when the service rejects it (401) or lacks the scope (403)", () => {
    for (const status of [401, 403]) {
      const e = apiError(status, "/v1/clusters", "POST");
      expect(e.message).not.toContain("pulumi");
      expect(safeMessage(e)).toBe(
        `${e.message} Set the token with \`pulumi config set --secret cms:token <token>\` or the \`CMS_TOKEN\` environment variable.`,
      );
    }
  });

  it("points at `pulumi up --refresh` for a cluster that is gone, not for a missing node", () => {
    expect(safeMessage(apiError(404, "/v1/clusters/cls_1"))).toMatch(/`pulumi up --refresh` records that and creates it again\.$/);
    expect(pulumiAdvice(apiError(404, "/v1/clusters/cls_1/nodes/node_1"))).toBeUndefined();
  });

  it("does not point a lookup by id (Cluster.get, the functions) at `pulumi up --refresh`: the stack does not hold it", () => {
    const gone = apiError(404, "/v1/clusters/cls_1");
    expect(safeMessage(gone, [], "lookup")).toBe(gone.message);
    expect(pulumiAdvice(apiError(401, "/v1/clusters/cls_1"), "lookup")).toMatch(/pulumi config set --secret cms:token/);
  });

  it("adds nothing to errors that have no Pulumi remedy", () => {
    const offline = networkErrorFrom({ method: "GET", path: "/v1/clusters", code: "ECONNREFUSED" });
    expect(safeMessage(offline)).toBe(offline.message);
    expect(safeMessage(apiError(409, "/v1/clusters/cls_1", "PATCH"))).toBe(apiError(409, "/v1/clusters/cls_1", "PATCH").message);
    expect(safeMessage("plain text")).toBe("plain text");
  });

  it("redacts a secret inside the advice as well", () => {
    const e = apiError(401, "/v1/clusters");
    expect(safeMessage(e, ["CMS_TOKEN"])).not.toContain("CMS_TOKEN");
  });
});
