// scripts/lib/contract-generated.mjs: what the generators made from @pulumi-cms/contract share
// (scripts/gen-answer-validators.mjs, scripts/gen-field-types.mjs): run as a script, a generator
// writes its file from the contract's build.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * When the module at `moduleUrl` is the script node runs: write `file` with what `source` makes
 * of the contract (`@pulumi-cms/contract`, its build), and say so.
 * @param {string} moduleUrl the generator's `import.meta.url`
 * @param {string} file
 * @param {(contract: typeof import("@pulumi-cms/contract")) => string} source
 */
export async function writeWhenRun(moduleUrl, file, source) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  const contract = await import("@pulumi-cms/contract");
  fs.writeFileSync(file, source(contract));
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
