import { describe, expect, it } from "vitest";
import { implementationSpecifier, pinnedPath } from "../../../src/hosts/dynamic/serializable";

describe("implementationSpecifier", () => {
  it("uses a package specifier of the pinned file when installed under node_modules", () => {
    expect(implementationSpecifier("/app/node_modules/pulumi-cms/dist/hosts/dynamic/entry.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
    expect(implementationSpecifier("C:\\app\\node_modules\\pulumi-cms\\dist\\hosts\\dynamic\\entry.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
  });

  it("keeps the scope of a scoped (or aliased) install", () => {
    expect(implementationSpecifier("/app/node_modules/@acme/cms/dist/hosts/dynamic/entry.js")).toBe(
      "@acme/cms/dist/provider/cluster-provider.js",
    );
  });

  it("uses the innermost node_modules (nested installs)", () => {
    expect(implementationSpecifier("/app/node_modules/a/node_modules/pulumi-cms/dist/hosts/dynamic/entry.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
  });

  it("falls back to the absolute path of the pinned file outside node_modules", () => {
    expect(implementationSpecifier("/work/main/dist/hosts/dynamic/entry.js")).toBe("/work/main/dist/provider/cluster-provider.js");
  });
});

describe("pinnedPath", () => {
  it("is the pinned file of the build that holds the host's module", () => {
    expect(pinnedPath("/work/main/dist/hosts/dynamic/serialized-entry.js", "provider/entry.js")).toBe("/work/main/dist/provider/entry.js");
  });
});
