/**
 * The paths stacks load the dynamic provider by, and where the serialized provider (`entry.ts`)
 * finds the implementation (`cluster-provider.ts`).
 *
 * The provider is deliberately thin: each method `require`s the implementation when first called
 * inside the provider host, and delegates. So the serialized text is the same for every resource
 * and every run, and never contains configuration or a token (those are resolved at call time in
 * the host). This file must stay free of imports that are used at run time: the serializer would
 * capture them.
 */

/**
 * The files of `dist/` that stacks load by path, each with the module of this folder it
 * re-exports: the state contract (CHANGELOG.md, "Versioning policy"). The provider texts in
 * stacks require them (`pinned`), so every release keeps them and their exports; package.json
 * exports them explicitly. The build writes each as a generated stub
 * (`scripts/gen-pinned-stubs.mjs`, after the compiler).
 */
export const PINNED_MODULES = {
  /** What a Cluster hands the serializer: a stack's provider text is a `require` of it. */
  entry: { pinned: "provider/entry.js", module: "hosts/dynamic/entry.js" },
  /**
   * What the entry loads; the provider texts of 0.1.0 and 0.2.0 require it directly. Its stub loads
   * the module from `bundle`, the module and all it loads in one file (`scripts/bundle.mjs`): a host
   * is a new process for every command, and it reads one file faster than 170.
   */
  implementation: {
    pinned: "provider/cluster-provider.js",
    module: "hosts/dynamic/cluster-provider.js",
    bundle: "provider/cluster-provider.bundle.js",
  },
} as const;

/** The pinned file `pinned` (a path under `dist/`) of the build that holds `moduleFile`, a module of this folder. */
export function pinnedPath(moduleFile: string, pinned: string): string {
  const parts = moduleFile.replace(/\\/g, "/").split("/");
  // `moduleFile` is <dist>/hosts/dynamic/<file>.
  return [...parts.slice(0, -3), pinned].join("/");
}

/**
 * What the serialized provider passes to `require` to load the implementation, for the entry
 * module `entryFile` (its `__filename`, in this folder of a build): the pinned
 * `provider/cluster-provider.js` of that build.
 *
 * - Installed as a package (the path runs through `node_modules/<name>/...`): a package
 *   specifier such as `pulumi-cms/dist/provider/cluster-provider.js`. The host process runs in
 *   the program's directory, so this resolves from the program's `node_modules`, and the text
 *   does not depend on where the project lives.
 * - Anywhere else (a program importing the repository's `dist` by relative path): the absolute
 *   path of the pinned file.
 */
export function implementationSpecifier(entryFile: string): string {
  const parts = pinnedPath(entryFile, PINNED_MODULES.implementation.pinned).split("/");
  const nm = parts.lastIndexOf("node_modules");
  const dirParts = parts.slice(0, -1);
  if (nm >= 0 && nm + 1 < dirParts.length) {
    const scoped = parts[nm + 1].startsWith("@");
    const pkgEnd = nm + (scoped ? 3 : 2); // index just past the package directory
    if (pkgEnd <= dirParts.length) return parts.slice(nm + 1).join("/");
  }
  return parts.join("/");
}
