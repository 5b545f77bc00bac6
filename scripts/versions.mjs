#!/usr/bin/env node
// scripts/versions.mjs: every place the release's one version is written, and whether they agree.
//
//   node scripts/versions.mjs check [--tag vX.Y.Z]   # exit 1, naming each disagreement
//   node scripts/versions.mjs set X.Y.Z              # the package.json files and package-lock.json
//
// The three packages are released together at one version (CONTRIBUTING.md, "Release"), and the
// native plugin's schema and its generated SDKs carry it too: the engine asks for the plugin at
// the SDK's version and downloads it from the SDK's `server`, so an SDK one version behind asks
// for a release that does not exist. `set` writes what npm owns; sdk/ is written by
// `npm run gen:sdk`, from the built package's version. `check` is what CI runs
// (test/e2e/release/versions.test.ts) and what the release workflow runs against its tag.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const CONTRACT = "@pulumi-cms/contract";
const EMULATOR = "@pulumi-cms/emulator";

/**
 * @param {string} dir
 * @param {string} file
 * @returns {any}
 */
function readJson(dir, file) {
  return JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
}

/**
 * What each place holds and what it must hold, for the version of the root package.json.
 * @param {string} dir the repository (or a copy of its version-bearing files)
 * @returns {{ version: string, places: { where: string, has: unknown, wants: string }[] }}
 */
export function versionPlaces(dir) {
  const rootPkg = readJson(dir, "package.json");
  const contract = readJson(dir, "packages/contract/package.json");
  const emulator = readJson(dir, "packages/emulator/package.json");
  const lock = readJson(dir, "package-lock.json");
  const schema = readJson(dir, "sdk/schema.json");
  const nodeSdk = readJson(dir, "sdk/nodejs/package.json");
  const goPlugin = readJson(dir, "sdk/go/cms/pulumi-plugin.json");
  const version = String(rootPkg.version);
  // The provider and the emulator are built against the contract of their own release: an exact
  // pin. The emulator is an optional peer, so a range: any emulator of the same minor.
  const places = [
    { where: "packages/contract/package.json version", has: contract.version, wants: version },
    { where: "packages/emulator/package.json version", has: emulator.version, wants: version },
    { where: `package.json dependencies["${CONTRACT}"]`, has: rootPkg.dependencies?.[CONTRACT], wants: version },
    { where: `packages/emulator/package.json dependencies["${CONTRACT}"]`, has: emulator.dependencies?.[CONTRACT], wants: version },
    { where: `package.json peerDependencies["${EMULATOR}"]`, has: rootPkg.peerDependencies?.[EMULATOR], wants: `^${version}` },
    { where: `package.json devDependencies["${EMULATOR}"]`, has: rootPkg.devDependencies?.[EMULATOR], wants: `^${version}` },
    { where: "package-lock.json version", has: lock.version, wants: version },
    { where: 'package-lock.json packages[""].version', has: lock.packages?.[""]?.version, wants: version },
    {
      where: 'package-lock.json packages["packages/contract"].version',
      has: lock.packages?.["packages/contract"]?.version,
      wants: version,
    },
    {
      where: 'package-lock.json packages["packages/emulator"].version',
      has: lock.packages?.["packages/emulator"]?.version,
      wants: version,
    },
    { where: "sdk/schema.json version", has: schema.version, wants: version },
    { where: "sdk/nodejs/package.json version", has: nodeSdk.version, wants: version },
    { where: "sdk/nodejs/package.json pulumi.version", has: nodeSdk.pulumi?.version, wants: version },
    { where: "sdk/go/cms/pulumi-plugin.json version", has: goPlugin.version, wants: version },
    // Where the engine downloads the plugin from: the schema names it, each SDK carries it.
    { where: "sdk/nodejs/package.json pulumi.server", has: nodeSdk.pulumi?.server, wants: String(schema.pluginDownloadURL) },
    { where: "sdk/go/cms/pulumi-plugin.json server", has: goPlugin.server, wants: String(schema.pluginDownloadURL) },
  ];
  return { version, places };
}

/**
 * Every disagreement, one sentence each; none when all agree (and, with `tag`, when the tag is
 * `v` and that version).
 * @param {string} dir
 * @param {{ tag?: string }} [options]
 * @returns {string[]}
 */
export function versionDisagreements(dir, options = {}) {
  const { version, places } = versionPlaces(dir);
  const problems = [];
  if (!/^\d+\.\d+\.\d+$/.test(version)) problems.push(`package.json version is ${JSON.stringify(version)}, not X.Y.Z`);
  if (options.tag !== undefined && options.tag !== `v${version}`)
    problems.push(`the tag ${options.tag} is not v${version}, the version of package.json`);
  for (const { where, has, wants } of places) {
    if (has !== wants) problems.push(`${where} is ${JSON.stringify(has)}, expected ${JSON.stringify(wants)}`);
  }
  return problems;
}

/**
 * Writes `version` into the package.json files and package-lock.json (what `check` reads of them).
 * @param {string} dir
 * @param {string} version
 */
export function setVersion(dir, version) {
  /** @param {string} file @param {(json: any) => void} edit */
  const update = (file, edit) => {
    const json = readJson(dir, file);
    edit(json);
    fs.writeFileSync(path.join(dir, file), `${JSON.stringify(json, null, 2)}\n`);
  };
  /** @param {any} pkg */
  const setRoot = (pkg) => {
    pkg.version = version;
    pkg.dependencies[CONTRACT] = version;
    pkg.peerDependencies[EMULATOR] = `^${version}`;
    pkg.devDependencies[EMULATOR] = `^${version}`;
  };
  /** @param {any} pkg */
  const setEmulator = (pkg) => {
    pkg.version = version;
    pkg.dependencies[CONTRACT] = version;
  };
  /** @param {any} pkg */
  const setContract = (pkg) => {
    pkg.version = version;
  };
  update("package.json", setRoot);
  update("packages/contract/package.json", setContract);
  update("packages/emulator/package.json", setEmulator);
  // The workspaces' entries in the lock mirror their package.json files; npm links them, so
  // nothing is resolved from a registry.
  update("package-lock.json", (lock) => {
    lock.version = version;
    setRoot(lock.packages[""]);
    setContract(lock.packages["packages/contract"]);
    setEmulator(lock.packages["packages/emulator"]);
  });
}

function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (command === "check") {
    const tagAt = rest.indexOf("--tag");
    const tag = tagAt >= 0 ? rest[tagAt + 1] : undefined;
    if (tagAt >= 0 && !tag) throw new Error("--tag needs a value");
    const problems = versionDisagreements(root, tag === undefined ? {} : { tag });
    if (problems.length > 0) {
      for (const p of problems) process.stderr.write(`versions: ${p}\n`);
      process.stderr.write("versions: node scripts/versions.mjs set X.Y.Z, then npm run gen:sdk, writes them all\n");
      process.exit(1);
    }
    process.stderr.write(`versions: every place says ${versionPlaces(root).version}${tag ? `, as the tag ${tag} does` : ""}\n`);
  } else if (command === "set" && rest.length === 1 && /^\d+\.\d+\.\d+$/.test(rest[0] ?? "")) {
    setVersion(root, /** @type {string} */ (rest[0]));
    process.stderr.write(`versions: the package.json files and package-lock.json say ${rest[0]}; now npm run gen:sdk (sdk/)\n`);
  } else {
    process.stderr.write("usage: node scripts/versions.mjs check [--tag vX.Y.Z] | set X.Y.Z\n");
    process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
