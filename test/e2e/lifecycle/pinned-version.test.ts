/**
 * One Pulumi version: the `@pulumi/pulumi` of package.json's devDependencies is the CLI that
 * scripts/ensure-pulumi builds (it reads the version from the wrapper module's go.mod) and the one
 * the examples depend on, so changing the pin in one place and not the others fails here.
 */
import { spawnSync } from "node:child_process";
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
    expect(read("scripts/pulumi-cli/go.mod")).toContain(`\nrequire github.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION}\n`);
    // The script has no version of its own: it reads the go.mod line above.
    expect(read("scripts/ensure-pulumi")).not.toContain(PINNED_PULUMI_VERSION);
  });

  it("is the CLI docs/gitops.md says CI runs a PostgreSQL backend with", () => {
    expect(read("docs/gitops.md").replace(/\s+/g, " ")).toContain(`(the CLI CI runs, ${PINNED_PULUMI_VERSION}, does)`);
  });

  it("is the pkg/v3 the SDK generator is built from, and the sdk/v3 the committed Go SDK requires", () => {
    expect(read("scripts/sdk-gen/go.mod")).toContain(`\n\tgithub.com/pulumi/pulumi/pkg/v3 v${PINNED_PULUMI_VERSION}\n`);
    expect(read("sdk/go/go.mod")).toContain(`\n\tgithub.com/pulumi/pulumi/sdk/v3 v${PINNED_PULUMI_VERSION}\n`);
  });

  it("names the cache scripts/ensure-pulumi looks in, and --no-build never builds it", () => {
    const located = spawnSync("bash", [path.join(REPO_ROOT, "scripts/ensure-pulumi"), "--no-build"], {
      env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", PULUMI_CMS_CACHE: "/nonexistent/cache" },
      encoding: "utf8",
    });
    expect(located.status, located.stderr).toBe(3);
    expect(located.stdout).toBe("");
    expect(located.stderr).toContain(`/nonexistent/cache/pulumi-v${PINNED_PULUMI_VERSION}/bin is empty`);
    expect(fs.existsSync("/nonexistent/cache")).toBe(false);
  });

  it("is what the examples depend on", () => {
    for (const example of fs.readdirSync(path.join(REPO_ROOT, "examples"))) {
      const manifest = path.join("examples", example, "package.json");
      if (!fs.existsSync(path.join(REPO_ROOT, manifest))) continue;
      expect(JSON.parse(read(manifest)).dependencies?.["@pulumi/pulumi"], manifest).toBe(PINNED_PULUMI_VERSION);
    }
  });
});
