/**
 * The release's plugin executable for the benchmarks: `scripts/release.mjs` writes the linux-amd64
 * archive (a Node.js single-executable application made from today's bundle), and it is unpacked
 * into a directory of its own, which holds nothing else (so a PATH of that directory finds no
 * `node`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { archiveName } from "../../scripts/release.mjs";
import { root } from "./pulumi.mjs";

/**
 * Writes the linux-amd64 archive into `<dir>/release` and unpacks it into `<dir>/bin`; that bin
 * directory (its `pulumi-resource-cms` is the executable).
 *
 * @param {string} dir a temporary directory the caller removes
 */
export function releaseExecutableDir(dir) {
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  execFileSync(process.execPath, [join(root, "scripts/release.mjs"), "--platforms", "linux-amd64", "--out", join(dir, "release")], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const bin = join(dir, "bin");
  mkdirSync(bin);
  execFileSync("tar", ["-xzf", join(dir, "release", archiveName(version, "linux-amd64")), "-C", bin]);
  return bin;
}
