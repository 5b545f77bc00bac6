import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sea from "node:sea";

/**
 * This package's package.json: read at run time beside the code (`src/client`, `dist/client`,
 * `dist/plugin` and `dist/provider`, where the bundles that carry this module are, are all two
 * levels below the package root; importing the JSON would pull it outside `rootDir`), or, in the release's
 * self-contained plugin executable (Node's single-executable application, `scripts/release.mjs`),
 * from the copy embedded in it as an asset, since nothing lies beside that executable.
 */
function packageJson(): string {
  return sea.isSea() ? sea.getAsset("package.json", "utf8") : readFileSync(join(__dirname, "..", "..", "package.json"), "utf8");
}

/** This package's version. */
export const PACKAGE_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(packageJson()) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/** Default `User-Agent`: `pulumi-cms/<version>`. */
export const DEFAULT_USER_AGENT = `pulumi-cms/${PACKAGE_VERSION}`;
