/**
 * Where the serialized provider (`entry.ts`) finds the implementation (`cluster-provider.js`).
 *
 * The provider is deliberately thin: each method `require`s the implementation when first called
 * inside the provider host, and delegates. So the serialized text is the same for every resource
 * and every run, and never contains configuration or a token (those are resolved at call time in
 * the host). This file must stay free of imports that are used at run time: the serializer would
 * capture them.
 */

/** File name of the implementation next to this file (after compilation). */
export const IMPLEMENTATION_FILE = "cluster-provider.js";

/**
 * What the serialized provider passes to `require` to load the implementation.
 *
 * - Installed as a package (the path runs through `node_modules/<name>/...`): a package
 *   specifier such as `pulumi-cms/dist/provider/cluster-provider.js`. The host process runs in
 *   the program's directory, so this resolves from the program's `node_modules`, and the text
 *   does not depend on where the project lives.
 *
 *   This specifier is part of the state contract (CHANGELOG.md, "Versioning policy"): the
 *   provider texts that earlier releases wrote into stacks require it, and refresh and destroy
 *   load it from whatever release is installed then. package.json exports it explicitly, and
 *   every release keeps that file and its `clusterProvider` export.
 * - Anywhere else (a program importing the repository's `dist` by relative path): the absolute
 *   path of the implementation file.
 */
export function implementationSpecifier(filename: string, implementationFile: string = IMPLEMENTATION_FILE): string {
  const normalized = filename.replace(/\\/g, "/");
  const parts = normalized.split("/");
  const nm = parts.lastIndexOf("node_modules");
  const dirParts = parts.slice(0, -1);
  if (nm >= 0 && nm + 1 < dirParts.length) {
    const scoped = parts[nm + 1].startsWith("@");
    const pkgEnd = nm + (scoped ? 3 : 2); // index just past the package directory
    if (pkgEnd <= dirParts.length) {
      const pkg = parts.slice(nm + 1, pkgEnd).join("/");
      const within = dirParts.slice(pkgEnd);
      return [pkg, ...within, implementationFile].join("/");
    }
  }
  return [...dirParts, implementationFile].join("/");
}
