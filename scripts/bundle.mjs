#!/usr/bin/env node
// scripts/bundle.mjs: write the package's bundles, each a module and every module it loads (the
// HTTP client and its dependencies included) in one file, with THIRD-PARTY-NOTICES.md beside it
// (the licences of the packages bundled). Run by `npm run build` after tsc and
// scripts/gen-pinned-stubs.mjs.
// - dist/plugin, the native plugin:
//   - bundle.js: the compiled plugin's command line (dist/plugin-command.js: the plugin, and the
//     `kubeconfig` and `recover` commands);
//   - pulumi-resource-cms.js, the package's `pulumi-resource-cms` bin: turns Node's module compile
//     cache on, then loads bundle.js (the cache must be on before the bundle is compiled).
// - dist/provider/cluster-provider.bundle.js: the dynamic provider's implementation
//   (dist/hosts/dynamic/cluster-provider.js), which its pinned stub loads after turning the compile
//   cache on (`PINNED_MODULES` in src/hosts/dynamic/serializable.ts, scripts/gen-pinned-stubs.mjs).
//
// Why: the engine starts a host on every command and waits for its first answers, which load the
// client. From one file, compiled once, the same modules cost less: docs/benchmarks.md, "The
// native plugin bundled" and "What the package adds to a command".
//
// Both bundles are two levels below the package root, as dist/client is: the bundled client reads
// the package's version from `../../package.json` beside the bundle (src/client/version.ts).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { pinnedModules } from "./gen-pinned-stubs.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

const BUNDLE_FILE = path.join(root, "dist/plugin/bundle.js");
const BIN_FILE = path.join(root, "dist/plugin/pulumi-resource-cms.js");
const NOTICES = "THIRD-PARTY-NOTICES.md";

/** The packages that must be bundled once: @pulumi/pulumi's stubs only recognise their own copies. */
const SINGLE_COPY = ["@grpc/grpc-js", "google-protobuf"];

/**
 * The bundle's entry: hand the plugin the engine's protocol (src/hosts/pulumi-grpc.ts, whose
 * table names the modules), each required from @pulumi/pulumi's stubs' directory as the stubs
 * require it, then run the command line (src/plugin-command.ts).
 */
function entrySource() {
  const grpcModule = path.join(root, "dist/hosts/pulumi-grpc.js");
  /** @type {Record<string, string>} */
  const modules = require(grpcModule).PULUMI_GRPC_MODULES;
  const lines = Object.entries(modules).map(([name, specifier]) => `  ${name}: require(${JSON.stringify(specifier)}),`);
  return [
    `require(${JSON.stringify(grpcModule)}).usePulumiGrpc({`,
    ...lines,
    "});",
    `require(${JSON.stringify(path.join(root, "dist/plugin-command.js"))}).runPluginCommand(process.argv.slice(2));`,
    "",
  ].join("\n");
}

/** The bin: Node's compile cache on (as in the dynamic-provider host), then the bundle beside it. */
const BIN_SOURCE = `#!/usr/bin/env node
// pulumi-resource-cms, the native plugin of pulumi-cms (written by its scripts/bundle.mjs).
// Node's module compile cache goes on before the plugin's bundle is compiled, so that the bundle
// is compiled once rather than on every command (NODE_COMPILE_CACHE says where it is kept,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off); the plugin saves it once it serves.
"use strict";
try {
  require("node:module").enableCompileCache?.();
} catch {
  // an optimization only
}
require("./bundle.js");
`;

/**
 * The directory of the package a bundled file belongs to, or undefined for this repository's own files.
 * @param {string} file
 */
function packageRoot(file) {
  const parts = file.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  return parts.slice(0, at + (parts[at + 1]?.startsWith("@") ? 3 : 2)).join("/");
}

/**
 * Each bundled package's directory (relative to the root), by name.
 * @param {import("esbuild").Metafile} metafile
 */
function bundledPackages(metafile) {
  /** @type {Map<string, Set<string>>} */
  const byName = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageRoot(input);
    if (!dir) continue;
    const { name } = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"));
    const dirs = byName.get(name) ?? new Set();
    dirs.add(dir);
    byName.set(name, dirs);
  }
  return byName;
}

/**
 * A package's licence texts: its LICENSE, COPYING or NOTICE files or, for a package that ships
 * none (agent-base), the "License" section of its README.
 * @param {string} dir
 */
function licenceTexts(dir) {
  const files = fs.readdirSync(dir).sort();
  const licences = files.filter((f) => /^(licen[cs]e|copying|notice)/i.test(f));
  if (licences.length > 0) return licences.map((f) => fs.readFileSync(path.join(dir, f), "utf8").trim());
  const readme = files.find((f) => /^readme/i.test(f));
  if (!readme) return [];
  const lines = fs.readFileSync(path.join(dir, readme), "utf8").split("\n");
  const isHeading = (/** @type {number} */ i) =>
    /^#{1,6}\s/.test(lines[i]) || (/^[-=]{3,}\s*$/.test(lines[i + 1] ?? "") && lines[i].trim() !== "");
  const start = lines.findIndex((line, i) => isHeading(i) && /^(#{1,6}\s*)?licen[cs]e\s*$/i.test(line.trim()));
  if (start < 0) return [];
  // Below the heading (one line, or two with a setext underline) to the next heading, without link definitions.
  const from = start + (lines[start].startsWith("#") ? 1 : 2);
  const next = lines.findIndex((_, i) => i >= from && isHeading(i));
  const section = lines.slice(from, next < 0 ? undefined : next).filter((line) => !/^\[[^\]]+\]:\s/.test(line));
  const text = section.join("\n").trim();
  return text ? [text] : [];
}

/**
 * The notices of a bundle: each bundled package's name, version, licence and licence text, in name order.
 * @param {string} carrier the file that carries them, as the notices name it
 * @param {Map<string, Set<string>>} packages
 * @param {string} noticesFile
 */
function noticesSource(carrier, packages, noticesFile) {
  const sections = [...packages.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, dirs]) =>
      [...dirs].sort().map((dir) => {
        const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"));
        const texts = licenceTexts(path.join(root, dir));
        if (texts.length === 0) throw new Error(`${name} (${dir}) has no licence text to carry into ${path.relative(root, noticesFile)}`);
        return [`## ${name} ${pkg.version} (${pkg.license ?? "see below"})`, "", "```text", ...texts, "```", ""].join("\n");
      }),
    );
  return [
    "# Third-party notices",
    "",
    `\`${carrier}\` carries the following packages, bundled with the package's own code.`,
    "",
    ...sections,
  ].join("\n");
}

/** @type {import("esbuild").BuildOptions & { metafile: true }} The settings both bundles share. */
const COMMON = {
  absWorkingDir: root,
  // Only pulumiGrpc's unbundled way resolves it: in the dynamic host, from @pulumi/pulumi beside
  // the package; the plugin's bundle hands the modules over first.
  external: ["@pulumi/pulumi/proto/provider_grpc_pb"],
  bundle: true,
  platform: "node",
  target: "node22",
  format: "cjs",
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
};

/** The native plugin, its bin and its notices, in dist/plugin. */
async function bundlePlugin() {
  const result = await build({
    ...COMMON,
    stdin: {
      contents: entrySource(),
      resolveDir: path.dirname(require.resolve("@pulumi/pulumi/proto/provider_grpc_pb")),
      sourcefile: "pulumi-resource-cms.js",
      loader: "js",
    },
    outfile: BUNDLE_FILE,
  });
  const packages = bundledPackages(result.metafile);
  for (const name of SINGLE_COPY) {
    const dirs = packages.get(name);
    if (dirs?.size !== 1)
      throw new Error(
        `the plugin must bundle ${name} once, from where @pulumi/pulumi's stubs load it; found: ${[...(dirs ?? [])].join(", ") || "none"}`,
      );
  }
  fs.writeFileSync(BIN_FILE, BIN_SOURCE);
  fs.chmodSync(BIN_FILE, 0o755);
  const notices = path.join(path.dirname(BIN_FILE), NOTICES);
  fs.writeFileSync(notices, noticesSource(path.basename(BIN_FILE), packages, notices));
}

/**
 * Each pinned module that ships bundled (`PINNED_MODULES`), with its notices beside it. It runs in
 * the dynamic-provider host, beside @pulumi/pulumi: the package bundles none of its gRPC.
 */
async function bundlePinned() {
  for (const { module, bundle } of pinnedModules()) {
    if (!bundle) continue;
    const outfile = path.join(root, "dist", bundle);
    const result = await build({ ...COMMON, entryPoints: [path.join(root, "dist", module)], outfile });
    const packages = bundledPackages(result.metafile);
    for (const name of SINGLE_COPY) {
      if (packages.has(name)) throw new Error(`${bundle} must not bundle ${name}: the host's is @pulumi/pulumi's`);
    }
    const notices = path.join(path.dirname(outfile), NOTICES);
    fs.writeFileSync(notices, noticesSource(path.basename(outfile), packages, notices));
  }
}

async function main() {
  await bundlePlugin();
  await bundlePinned();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`bundle: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
