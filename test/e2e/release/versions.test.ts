/**
 * One version everywhere (scripts/versions.mjs): the three packages, their references to each
 * other, package-lock.json, the native plugin's schema and its generated SDKs, and the SDKs'
 * download server against the schema's. The release workflow runs the same check against its tag.
 * Each kind of disagreement is shown failing on a copy of the files with one place changed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setVersion, versionDisagreements } from "../../../scripts/versions.mjs";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

const FILES = [
  "package.json",
  "package-lock.json",
  "packages/contract/package.json",
  "packages/emulator/package.json",
  "sdk/schema.json",
  "sdk/nodejs/package.json",
  "sdk/go/cms/pulumi-plugin.json",
];
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
const SCRIPT = path.join(REPO_ROOT, "scripts/versions.mjs");

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the files that hold the version, with the value at `keys` in `file` set (removed when undefined). */
function copyWith(file?: string, keys: string[] = [], value?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-versions-"));
  copies.push(dir);
  for (const f of FILES) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
  }
  if (file) {
    const json = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], json);
    const last = keys.at(-1) as string;
    if (value === undefined) delete parent[last];
    else parent[last] = value;
    fs.writeFileSync(path.join(dir, file), JSON.stringify(json));
  }
  return dir;
}

/** Runs `node scripts/versions.mjs ARGS` on the repository: its exit code and stderr. */
function cli(...args: string[]): { code: number; stderr: string } {
  try {
    execFileSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, stderr: "" };
  } catch (e) {
    const err = e as { status?: number; stderr?: string };
    return { code: err.status ?? 1, stderr: err.stderr ?? String(e) };
  }
}

describe("the release's version", () => {
  it("is the same in every place in the repository (else: node scripts/versions.mjs set X.Y.Z, npm run gen:sdk)", () => {
    expect(versionDisagreements(REPO_ROOT)).toEqual([]);
  });

  it("agrees with a tag v<version>, and the check fails against any other tag", () => {
    expect(versionDisagreements(REPO_ROOT, { tag: `v${VERSION}` })).toEqual([]);
    expect(versionDisagreements(REPO_ROOT, { tag: `v${VERSION}.1` })).toEqual([
      `the tag v${VERSION}.1 is not v${VERSION}, the version of package.json`,
    ]);
    expect(cli("check", "--tag", `v${VERSION}`).code).toBe(0);
    const wrong = cli("check", "--tag", "v99.0.0");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("the tag v99.0.0 is not");
  });

  const bumped = "99.1.0";
  // [what, file, the key path changed, its new value (undefined: removed), the place named]
  it.each<[string, string, string[], string | undefined, string]>([
    ["a package's own version", "packages/contract/package.json", ["version"], bumped, "packages/contract/package.json version"],
    ["the emulator's version", "packages/emulator/package.json", ["version"], bumped, "packages/emulator/package.json version"],
    [
      "the provider's pin of the contract made a range",
      "package.json",
      ["dependencies", "@pulumi-cms/contract"],
      `^${VERSION}`,
      'package.json dependencies["@pulumi-cms/contract"]',
    ],
    [
      "the emulator's pin of the contract",
      "packages/emulator/package.json",
      ["dependencies", "@pulumi-cms/contract"],
      bumped,
      'packages/emulator/package.json dependencies["@pulumi-cms/contract"]',
    ],
    [
      "the peer range on the emulator",
      "package.json",
      ["peerDependencies", "@pulumi-cms/emulator"],
      `^${bumped}`,
      'package.json peerDependencies["@pulumi-cms/emulator"]',
    ],
    [
      "the dev range on the emulator",
      "package.json",
      ["devDependencies", "@pulumi-cms/emulator"],
      "*",
      'package.json devDependencies["@pulumi-cms/emulator"]',
    ],
    [
      "the lock's version of a workspace",
      "package-lock.json",
      ["packages", "packages/emulator", "version"],
      bumped,
      'package-lock.json packages["packages/emulator"].version',
    ],
    ["the schema's version", "sdk/schema.json", ["version"], bumped, "sdk/schema.json version"],
    ["the Node.js SDK's version", "sdk/nodejs/package.json", ["version"], bumped, "sdk/nodejs/package.json version"],
    [
      "the plugin version the Node.js SDK asks for",
      "sdk/nodejs/package.json",
      ["pulumi", "version"],
      bumped,
      "sdk/nodejs/package.json pulumi.version",
    ],
    [
      "the plugin version the Go SDK asks for",
      "sdk/go/cms/pulumi-plugin.json",
      ["version"],
      bumped,
      "sdk/go/cms/pulumi-plugin.json version",
    ],
    [
      "the Node.js SDK's download server",
      "sdk/nodejs/package.json",
      ["pulumi", "server"],
      "github://api.github.com/someone-else",
      "sdk/nodejs/package.json pulumi.server",
    ],
    ["the Go SDK's download server", "sdk/go/cms/pulumi-plugin.json", ["server"], undefined, "sdk/go/cms/pulumi-plugin.json server"],
  ])("fails when %s disagrees, naming it", (_what, file, keys, value, where) => {
    const problems = versionDisagreements(copyWith(file, keys, value));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.startsWith(`${where} is `)).toBe(true);
  });

  it("fails when the root package's version moves alone: every other place is then named", () => {
    const problems = versionDisagreements(copyWith("package.json", ["version"], bumped));
    expect(problems.length).toBeGreaterThan(10);
    expect(problems).toContain(`sdk/schema.json version is "${VERSION}", expected "${bumped}"`);
  });

  it("set writes every package.json place and the lock; only sdk/ is left, for npm run gen:sdk", () => {
    const dir = copyWith();
    setVersion(dir, bumped);
    const problems = versionDisagreements(dir);
    expect(problems.every((p) => p.startsWith("sdk/"))).toBe(true);
    expect(problems).toHaveLength(4);
  });
});
