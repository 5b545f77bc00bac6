import { describe, expect, it } from "vitest";
import { engineAddressFromHost } from "../../src/provider/progress";
import { progressLine } from "../../src/provider/progress-line";

describe("progress", () => {
  it("formats status, ready nodes and time waited", () => {
    const node = (status: string) => ({ status }) as never;
    expect(progressLine("provisioning", { items: [node("ready"), node("joining"), node("ready")], total: 6 }, 80_000)).toBe(
      "provisioning: 2/6 nodes ready (1m20s)",
    );
    expect(progressLine("scaling", undefined, 5_000)).toBe("scaling (5s)");
    expect(progressLine("provisioning", undefined, 24)).toBe("provisioning (0s)");
  });

  it("only finds an engine inside the dynamic-provider host", () => {
    const host = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
    expect(engineAddressFromHost(["node", host, "127.0.0.1:41234"], host)).toBe("127.0.0.1:41234");
    expect(engineAddressFromHost(["node", "vitest", "run"], "/x/vitest.mjs")).toBeUndefined();
    expect(engineAddressFromHost(["node", host], host)).toBeUndefined();
    expect(engineAddressFromHost(["node", host, "--flag"], host)).toBeUndefined();
  });
});
