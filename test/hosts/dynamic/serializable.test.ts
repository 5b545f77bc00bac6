import { describe, expect, it } from "vitest";
import { implementationSpecifier } from "../../../src/hosts/dynamic/serializable";

describe("implementationSpecifier", () => {
  it("uses a package specifier when installed under node_modules", () => {
    expect(implementationSpecifier("/app/node_modules/pulumi-cms/dist/provider/serializable.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
    expect(implementationSpecifier("C:\\app\\node_modules\\pulumi-cms\\dist\\provider\\serializable.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
  });

  it("keeps the scope of a scoped (or aliased) install", () => {
    expect(implementationSpecifier("/app/node_modules/@acme/cms/dist/provider/serializable.js")).toBe(
      "@acme/cms/dist/provider/cluster-provider.js",
    );
  });

  it("uses the innermost node_modules (nested installs)", () => {
    expect(implementationSpecifier("/app/node_modules/a/node_modules/pulumi-cms/dist/provider/serializable.js")).toBe(
      "pulumi-cms/dist/provider/cluster-provider.js",
    );
  });

  it("falls back to the absolute path outside node_modules", () => {
    expect(implementationSpecifier("/work/main/dist/provider/serializable.js")).toBe("/work/main/dist/provider/cluster-provider.js");
  });
});
