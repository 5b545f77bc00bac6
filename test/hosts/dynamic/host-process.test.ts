import { describe, expect, it } from "vitest";
import { useCompileCacheInHost } from "../../../src/hosts/dynamic/compile-cache";
import { engineAddressFromHost } from "../../../src/hosts/dynamic/host-process";

describe("the host process", () => {
  it("only finds an engine inside the dynamic-provider host", () => {
    const host = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
    expect(engineAddressFromHost(["node", host, "127.0.0.1:41234"], host)).toBe("127.0.0.1:41234");
    expect(engineAddressFromHost(["node", "vitest", "run"], "/x/vitest.mjs")).toBeUndefined();
    expect(engineAddressFromHost(["node", host], host)).toBeUndefined();
    expect(engineAddressFromHost(["node", host, "--flag"], host)).toBeUndefined();
  });

  it("finds the engine after the logging flags the CLI passes with `-v` (`pulumi up -v=9 --logtostderr`)", () => {
    const host = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
    expect(engineAddressFromHost(["node", host, "--logtostderr", "-v=9", "--logflow", "127.0.0.1:41234"], host)).toBe("127.0.0.1:41234");
  });

  // Inside a real host process: test/hosts/dynamic/entry-live.test.ts.
  it("does not touch the compile cache of any other process", () => {
    expect(useCompileCacheInHost()).toBeUndefined();
    expect(useCompileCacheInHost(false)).toBeUndefined();
  });
});
