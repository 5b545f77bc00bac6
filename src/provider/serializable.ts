/**
 * The provider object handed to `pulumi.dynamic.Resource`, and therefore the thing Pulumi
 * serializes (with `pulumi.runtime.serializeFunction`) into every Cluster's `__provider` input.
 *
 * It is deliberately thin: each method `require`s the implementation (`cluster-provider.js`)
 * when first called inside the provider host, and delegates. So the serialized text is a few
 * lines, the same for every resource and every run, and never contains configuration or a
 * token (those are resolved at call time in the host). This file must stay free of imports
 * that are used at run time: the serializer would capture them.
 */
import type * as pulumi from "@pulumi/pulumi";

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
 *   This specifier is the state contract (CHANGELOG.md, "Versioning policy"): every stack holds
 *   it, and refresh and destroy load it from whatever release is installed then. package.json
 *   exports it explicitly, and every release keeps that file and its `clusterProvider` export.
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

const IMPLEMENTATION = implementationSpecifier(__filename);

// Resolved lazily, inside the host, on the first call; Node caches the module afterwards.
function load(): Required<pulumi.dynamic.ResourceProvider> {
  return require(IMPLEMENTATION).clusterProvider;
}

/** The serializable Cluster provider (delegates every method to `cluster-provider.ts`). */
export const serializableProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => load().configure(req),
  check: (olds, news) => load().check(olds, news),
  diff: (id, olds, news) => load().diff(id, olds, news),
  create: (inputs) => load().create(inputs),
  read: (id, props) => load().read(id, props),
  update: (id, olds, news) => load().update(id, olds, news),
  delete: (id, props) => load().delete(id, props),
};
