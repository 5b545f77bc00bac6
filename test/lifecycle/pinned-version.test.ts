/**
 * One Pulumi version: the `@pulumi/pulumi` of package.json's devDependencies is the CLI that
 * scripts/ensure-pulumi builds (its PULUMI_VERSION and the wrapper module's go.mod) and the one
 * the examples depend on, so changing the pin in one place and not the others fails here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PINNED_PULUMI_VERSION, REPO_ROOT } from "./harness.mjs";

const read = (rel: string) => fs.readFileSync(path.join(REPO_ROOT, rel), "utf8");

describe("the pinned Pulumi version", () => {
  it("is an exact version", () => {
    expect(PINNED_PULUMI_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("is the CLI scripts/ensure-pulumi builds and the minimum it accepts on PATH", () => {
    const script = read("scripts/ensure-pulumi");
    expect(script).toContain(`readonly PULUMI_VERSION=v${PINNED_PULUMI_VERSION}\n`);
    expect(script).toContain(`readonly MIN_PATH_VERSION=${PINNED_PULUMI_VERSION}\n`);
    expect(read("scripts/pulumi-cli/go.mod")).toMatch(
      new RegExp(`github\\.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION.replace(/\./g, "\\.")}\\b`),
    );
  });
});
