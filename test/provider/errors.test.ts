import { describe, expect, it } from "vitest";
import { ClusterInitError, safeMessage } from "../../src/provider/errors";
import { engineAddressFromHost } from "../../src/provider/progress";
import { progressLine } from "../../src/provider/progress-line";
import { judgeStatus } from "../../src/provider/waiter";

describe("errors", () => {
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

  it("redacts secrets from messages", () => {
    expect(safeMessage(new Error("Bearer s3cr3t-token"), ["s3cr3t-token", undefined])).toBe("Bearer [secret]");
  });
});

describe("status verdicts", () => {
  it.each([
    ["running", "running", "done"],
    ["provisioning", "running", "wait"],
    ["scaling", "running", "wait"],
    ["upgrading", "running", "wait"],
    ["some-new-status", "running", "wait"],
    ["error", "running", "failed"],
    ["deleting", "running", "failed"],
    ["deleting", "gone", "wait"],
    ["running", "gone", "wait"],
    ["error", "gone", "failed"],
  ] as const)("%s while waiting for %s: %s", (status, target, verdict) => {
    expect(judgeStatus(status, target)).toBe(verdict);
  });
});

describe("progress", () => {
  it("formats status, ready nodes and time waited", () => {
    const node = (status: string) => ({ status }) as never;
    expect(progressLine("provisioning", { items: [node("ready"), node("joining"), node("ready")], total: 6 }, 80_000)).toBe(
      "provisioning: 2/6 nodes ready (1m20s)",
    );
    expect(progressLine("scaling", undefined, 5_000)).toBe("scaling (5s)");
  });

  it("only finds an engine inside the dynamic-provider host", () => {
    const host = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
    expect(engineAddressFromHost(["node", host, "127.0.0.1:41234"], host)).toBe("127.0.0.1:41234");
    expect(engineAddressFromHost(["node", "vitest", "run"], "/x/vitest.mjs")).toBeUndefined();
    expect(engineAddressFromHost(["node", host], host)).toBeUndefined();
    expect(engineAddressFromHost(["node", host, "--flag"], host)).toBeUndefined();
  });
});
