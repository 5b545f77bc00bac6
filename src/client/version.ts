import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * This package's version, read from package.json at run time: `src/client`, `dist/client` and
 * `dist/plugin` (the bundled native plugin, which carries this module) are all two levels below
 * the package root, and importing the JSON would pull it outside `rootDir`.
 */
export const PACKAGE_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/** Default `User-Agent`: `pulumi-cms/<version>`. */
export const DEFAULT_USER_AGENT = `pulumi-cms/${PACKAGE_VERSION}`;
