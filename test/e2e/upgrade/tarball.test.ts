/** What `npm pack` ships: the built code and the user's files, nothing about working on the repository. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { CONTRACT_PACKAGE, EMULATOR_PACKAGE, PROVIDER_DOCUMENTS } from "../../support/packages";

/** What `npm pack` of the package at `dir` would ship. */
function packedFiles(dir: string): string[] {
  // --ignore-scripts: `npm test` has just built dist/ (a real `npm pack` builds first: prepack).
  const listing = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as Array<{ files: Array<{ path: string }> }>;
  return listing[0].files.map((f) => f.path);
}

/**
 * Stack frames name only what the package ships: a shipped `.js` that points at a source map
 * (Pulumi's language host maps every frame through them) must ship the map and every source the
 * map names. (Maps into `src/`, which is not shipped, made Node print frames into missing files.)
 */
function framesIntoUnshippedFiles(dir: string, files: string[]): string[] {
  const missing: string[] = [];
  for (const file of files.filter((f) => f.endsWith(".js"))) {
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(fs.readFileSync(path.join(dir, file), "utf8"))?.[1];
    if (url === undefined) continue;
    const map = path.posix.join(path.posix.dirname(file), url);
    if (!files.includes(map)) {
      missing.push(`${file} -> ${map}`);
      continue;
    }
    const { sources, sourceRoot } = JSON.parse(fs.readFileSync(path.join(dir, map), "utf8")) as { sources: string[]; sourceRoot?: string };
    for (const source of sources) {
      const shipped = path.posix.normalize(path.posix.join(path.posix.dirname(map), sourceRoot ?? "", source));
      if (!files.includes(shipped)) missing.push(`${map} -> ${shipped}`);
    }
  }
  return missing;
}

describe("the package tarball", () => {
  const files = packedFiles(REPO_ROOT);

  it.each([
    "package.json",
    "LICENSE",
    ...PROVIDER_DOCUMENTS,
    "dist/index.js",
    "dist/index.d.ts",
    // The deprecated `pulumi-cms/emulator`, which re-exports @pulumi-cms/emulator.
    "dist/emulator/index.js",
    "dist/recover/cli.js",
    // The `cms-gitops` bin: docs/gitops.md's merge job.
    "dist/gitops/cli.js",
    // The `cms-kubeconfig` bin: the exec credential plugin that kubernetesProvider's kubeconfig runs.
    "dist/kubernetes/cli.js",
    // The native plugin: the `pulumi-resource-cms` bin (test/e2e/native runs it from this tarball),
    // the bundle it loads, and the licences of the packages inside that.
    "dist/plugin/pulumi-resource-cms.js",
    "dist/plugin/bundle.js",
    "dist/plugin/THIRD-PARTY-NOTICES.md",
    // `pulumi-cms/native`, the generated Node.js SDK it re-exports, and the version its getVersion() reads.
    "dist/native/index.js",
    "dist/native/index.d.ts",
    "dist/native/sdk/index.js",
    "dist/native/sdk/package.json",
    // The state contract: the entry every stack's serialized provider loads.
    "dist/provider/cluster-provider.js",
  ])("holds %s", (file) => {
    expect(files).toContain(file);
  });

  it("holds nothing about working on the repository, and nothing of the emulator (its own package)", () => {
    const inside = files.filter(
      (f) =>
        /^(test|bench|scripts|examples|demo|src|packages|\.ci)\//.test(f) ||
        /^docs\/(pulumi-cli|benchmarks)\.md$/.test(f) ||
        (/^dist\/emulator\//.test(f) && !/^dist\/emulator\/index\.(js|d\.ts)$/.test(f)),
    );
    expect(inside).toEqual([]);
  });

  it("names no unshipped file in a stack frame", () => {
    expect(framesIntoUnshippedFiles(REPO_ROOT, files)).toEqual([]);
  });

  it.each([REPO_ROOT, EMULATOR_PACKAGE, CONTRACT_PACKAGE])(
    "runs no script when installed: npm asks users to approve packages that do (prepare included): %s",
    (dir) => {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { scripts?: Record<string, string> };
      const installScripts = ["preinstall", "install", "postinstall", "prepare"].filter((s) => pkg.scripts?.[s] !== undefined);
      expect(installScripts).toEqual([]);
    },
  );

  it("names the exec credential plugin as a bin, `cms-kubeconfig`, the file the stacks' kubeconfigs load", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin["cms-kubeconfig"]).toBe("dist/kubernetes/cli.js");
    expect(fs.readFileSync(path.join(REPO_ROOT, pkg.bin["cms-kubeconfig"]), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it("names the native plugin as a bin, so that `npm install -g` puts pulumi-resource-cms on PATH", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin["pulumi-resource-cms"]).toBe("dist/plugin/pulumi-resource-cms.js");
    expect(fs.readFileSync(path.join(REPO_ROOT, pkg.bin["pulumi-resource-cms"]), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it("exports the state contract's entry explicitly", () => {
    const pkg = JSON.parse(execFileSync("cat", ["package.json"], { cwd: REPO_ROOT, encoding: "utf8" })) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports["./dist/provider/cluster-provider.js"]).toBe("./dist/provider/cluster-provider.js");
  });
});

describe("the emulator's tarball (@pulumi-cms/emulator)", () => {
  const files = packedFiles(EMULATOR_PACKAGE);

  it.each([
    "package.json",
    "README.md",
    "LICENSE",
    "docs/kubernetes.md",
    "docs/contract.md",
    "dist/index.js",
    "dist/index.d.ts",
    "dist/cli.js",
    "dist/store/worker.js",
    // The `cms-ensure-kubernetes` bin: builds what `cms-emulator --kubernetes` runs.
    "scripts/ensure-kubernetes",
    "scripts/lib/go-build.sh",
    "scripts/kubernetes/control-plane/go.sum",
    "scripts/kubernetes/control-plane/kube-apiserver/main.go",
    "scripts/kubernetes/etcd/go.sum",
    "scripts/kubernetes/kwok/go.sum",
  ])("holds %s", (file) => {
    expect(files).toContain(file);
  });

  it("holds nothing about working on the repository (the one script it holds is a user's bin)", () => {
    const userTools =
      /^scripts\/(ensure-kubernetes|lib\/go-build\.sh|kubernetes\/(control-plane|etcd|kwok)\/(go\.mod|go\.sum|([\w-]+\/)?main\.go))$/;
    const inside = files.filter(
      (f) => (/^(test|bench|scripts|src|\.ci)\//.test(f) && !userTools.test(f)) || /^dist\/(test|bench)\//.test(f),
    );
    expect(inside).toEqual([]);
  });

  it("holds nothing of the provider: what both need is @pulumi-cms/contract, a dependency of both", () => {
    expect(files.filter((f) => /^dist\/(src|packages)\//.test(f))).toEqual([]);
    for (const dir of [REPO_ROOT, EMULATOR_PACKAGE]) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        version: string;
        dependencies: Record<string, string>;
      };
      // The same version as the package itself: the three are released together.
      expect(pkg.dependencies["@pulumi-cms/contract"]).toBe(pkg.version);
    }
  });

  it("names no unshipped file in a stack frame", () => {
    expect(framesIntoUnshippedFiles(EMULATOR_PACKAGE, files)).toEqual([]);
  });
});

describe("the contract's tarball (@pulumi-cms/contract)", () => {
  const files = packedFiles(CONTRACT_PACKAGE);

  it("holds its built code at dist/ and the user's files, nothing else", () => {
    expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]));
    expect(files.filter((f) => !/^(package\.json|README\.md|LICENSE|dist\/[\w-]+\.(js|d\.ts))$/.test(f))).toEqual([]);
  });

  it("names no unshipped file in a stack frame", () => {
    expect(framesIntoUnshippedFiles(CONTRACT_PACKAGE, files)).toEqual([]);
  });
});
