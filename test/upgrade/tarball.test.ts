/** What `npm pack` ships: the built code and the user's files, nothing about working on the repository. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

describe("the package tarball", () => {
  // --ignore-scripts: `npm test` has just built dist/ (a real `npm pack` builds first: prepack).
  const listing = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as Array<{ files: Array<{ path: string }> }>;
  const files = listing[0].files.map((f) => f.path);

  it.each([
    "package.json",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "docs/api-contract.md",
    "docs/emulator.md",
    "docs/gitops.md",
    "docs/kubernetes.md",
    "dist/index.js",
    "dist/index.d.ts",
    "dist/emulator/cli.js",
    "dist/recover/cli.js",
    // The state contract: the entry every stack's serialized provider loads.
    "dist/provider/cluster-provider.js",
    // The `cms-ensure-kubernetes` bin: builds what `cms-emulator --kubernetes` runs.
    "scripts/ensure-kubernetes",
    "scripts/lib/go-build.sh",
    "scripts/kubernetes/apiserver/go.sum",
    "scripts/kubernetes/etcd/go.sum",
  ])("holds %s", (file) => {
    expect(files).toContain(file);
  });

  it("holds nothing about working on the repository (the one script it holds is a user's bin)", () => {
    const userTools = /^scripts\/(ensure-kubernetes|lib\/go-build\.sh|kubernetes\/(apiserver|etcd)\/(go\.mod|go\.sum|main\.go))$/;
    const inside = files.filter(
      (f) =>
        (/^(test|bench|scripts|examples|demo|src|\.ci)\//.test(f) && !userTools.test(f)) || /^docs\/(pulumi-cli|benchmarks)\.md$/.test(f),
    );
    expect(inside).toEqual([]);
  });

  it("runs no script when installed: npm asks users to approve packages that do (prepare included)", () => {
    const pkg = JSON.parse(execFileSync("cat", ["package.json"], { cwd: REPO_ROOT, encoding: "utf8" })) as {
      scripts?: Record<string, string>;
    };
    const installScripts = ["preinstall", "install", "postinstall", "prepare"].filter((s) => pkg.scripts?.[s] !== undefined);
    expect(installScripts).toEqual([]);
  });

  it("exports the state contract's entry explicitly", () => {
    const pkg = JSON.parse(execFileSync("cat", ["package.json"], { cwd: REPO_ROOT, encoding: "utf8" })) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports["./dist/provider/cluster-provider.js"]).toBe("./dist/provider/cluster-provider.js");
  });
});
