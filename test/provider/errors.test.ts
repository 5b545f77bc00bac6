import { describe, expect, it } from "vitest";
import { ClusterInitError } from "../../src/provider/errors";

describe("ClusterInitError", () => {
  it("carries what the host needs for a partial failure", () => {
    const e = new ClusterInitError("not ready", "cls_1", { status: "error", __provider: "p" }, ["status error"]);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({
      id: "cls_1",
      properties: { status: "error", __provider: "p" },
      reasons: ["status error"],
      message: "not ready",
    });
  });
});
