/**
 * The layers of the provider package and the rule against import cycles (`npm run lint`).
 *
 *   generated  <-  shared  <-  client  <-  provider core  <-  hosts  <-  the package's surface
 *
 * - generated (`src/generated/`): the code `npm run gen` makes from `@pulumi-cms/contract` (the
 *   client's compiled answer checks, the camelCase types); imports nothing of the package, so any
 *   layer may use it and its generators need nothing but the contract.
 * - shared (`src/shared/`): the camelCase cluster, ownership, errors' base; imports
 *   nothing of the package (the wire types and the clock are `@pulumi-cms/contract`'s).
 * - client (`src/client/`): the HTTP client of the service; knows nothing of Pulumi.
 * - provider core (`src/provider/`, `src/connection/`): the Cluster's operations (`operations/`),
 *   the rules about its inputs and outputs (`properties/`), naming and adoption (`naming/`),
 *   waiting and the shared polls and reads (`polling/`), progress lines (`progress/`); it does not
 *   know how it is hosted.
 * - hosts (`src/hosts/<host>/`): how a Pulumi engine runs the core (`dynamic/`: Pulumi's Node
 *   dynamic-provider host, with the modules stacks load; `native/`: the plugin). The `dist/` paths
 *   stacks load them by, `dist/provider/entry.js` and `dist/provider/cluster-provider.js` (the
 *   state contract, CHANGELOG.md), are stubs the build writes (`scripts/gen-pinned-stubs.mjs`),
 *   with no source in `src/provider/`.
 * - surface (`src/index.ts`, `plugin-command.ts`, `resources/`, `functions/`, `kubernetes/`,
 *   `recover/`, `gitops/`, `emulator/`, `native/`): what users import and run.
 *
 * A module may import its own layer and the layers below it, never one above.
 *
 * Beneath them all, and beside the provider: the workspace packages.
 * - `packages/contract` (`@pulumi-cms/contract`): the wire types and schemas, the clock and the
 *   small helpers both the provider and the emulator need. It imports nothing of either.
 * - `packages/emulator` (`@pulumi-cms/emulator`): imports nothing of the provider; what it shares
 *   with it comes from `@pulumi-cms/contract`, by package name like any dependency.
 * The provider imports the contract by package name too (`src/shared/` is the provider's own).
 */
const HOSTS = "^src/hosts/";
const SURFACE = "^src/(index[.]ts$|plugin-command[.]ts$|resources/|functions/|kubernetes/|recover/|gitops/|emulator/|native/)";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle anywhere: a cycle makes load order matter and the layers meaningless.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "shared-imports-nothing-above",
      comment: "src/shared is the bottom layer.",
      severity: "error",
      from: { path: "^src/shared/" },
      to: { path: "^src/", pathNot: "^src/(shared|generated)/" },
    },
    {
      name: "generated-imports-nothing",
      comment: "src/generated is what `npm run gen` makes from @pulumi-cms/contract: it imports nothing of the package.",
      severity: "error",
      from: { path: "^src/generated/" },
      to: { path: "^src/", pathNot: "^src/generated/" },
    },
    {
      name: "client-imports-only-shared",
      comment: "The HTTP client knows nothing of Pulumi, the provider or its hosts.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/(client|shared|generated)/" },
    },
    {
      name: "core-knows-no-host",
      comment: "The provider core does not know how it is hosted, nor what the package's surface is.",
      severity: "error",
      from: { path: "^src/(provider|connection)/" },
      to: { path: [HOSTS, SURFACE] },
    },
    {
      name: "core-imports-no-pulumi-sdk",
      comment:
        "The provider core works in its own terms (operations/results.ts); each host speaks its engine's. " +
        "connection/stack-config.ts is the exception: the program, not a host, reads the stack configuration.",
      severity: "error",
      from: { path: "^src/(provider|connection)/", pathNot: "^src/connection/stack-config[.]ts$" },
      to: { path: "node_modules/@pulumi/pulumi" },
    },
    {
      name: "properties-are-pure",
      comment:
        "src/provider/properties holds the pure rules about a Cluster's inputs and outputs (check, diff, " +
        "mapping, ...): they call no service, wait for nothing and report nothing, so each is unit-tested " +
        "directly. They import only each other, the core's types, the naming rule, src/shared and src/generated.",
      severity: "error",
      from: { path: "^src/provider/properties/" },
      to: { path: "^src/", pathNot: "^src/(shared/|generated/|provider/(properties/|types[.]ts$|naming/auto-name[.]ts$))" },
    },
    {
      name: "hosts-below-surface",
      comment: "A host runs the core; the package's surface stands on top of it.",
      severity: "error",
      from: { path: HOSTS },
      to: { path: SURFACE },
    },
    {
      name: "emulator-stands-alone",
      comment:
        "packages/emulator is a package of its own: its code and its tests import nothing of the root " +
        "(src/, test/, scripts/, bench/); the wire contract and the clock it shares with the provider come " +
        "from @pulumi-cms/contract, a dependency. The root may use the emulator's test helpers " +
        "(test/support re-exports them), never the reverse.",
      severity: "error",
      from: { path: "^packages/emulator/" },
      to: { path: "^(src|test|scripts|bench)/" },
    },
    {
      name: "store-worker-node-only",
      comment:
        "The emulator's store worker runs as a thread started by its file name, under the tests as its " +
        "TypeScript source through Node's type stripping: it imports Node.js's modules only.",
      severity: "error",
      from: { path: "^packages/emulator/src/store/worker[.]ts$" },
      to: { dependencyTypesNot: ["core"] },
    },
    {
      name: "packages-by-name",
      comment:
        "A workspace package is imported by its name (@pulumi-cms/contract), as from an installed tarball, " +
        "never by a relative path into its directory.",
      severity: "error",
      from: { pathNot: "^packages/contract/" },
      to: { path: "^packages/contract/src/" },
    },
    {
      name: "contract-stands-alone",
      comment:
        "packages/contract is what the provider and the emulator both need: it imports nothing of either " +
        "(nor of the root's test/, scripts/, bench/).",
      severity: "error",
      from: { path: "^packages/contract/" },
      to: { path: "^(src|test|scripts|bench|packages/emulator)/" },
    },
    {
      name: "contract-only-its-own-deps",
      comment:
        "packages/contract's code runs wherever the provider or the emulator is installed: it imports only " +
        "Node.js's modules, its own files and the dependencies of its own package.json (none today).",
      severity: "error",
      from: { path: "^packages/contract/src/" },
      to: { dependencyTypesNot: ["core", "local", "npm"] },
    },
  ],
  options: {
    // node_modules and the workspace packages' builds stay in the graph, unfollowed, so that a rule
    // can name a package (core-imports-no-pulumi-sdk, contract-only-its-own-deps): an import of
    // `@pulumi-cms/contract` resolves to packages/contract/dist/. Only the root's own build is left out.
    doNotFollow: { path: ["node_modules", "^packages/[^/]+/dist/"] },
    exclude: { path: "^dist/" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count: a cycle through types is still a cycle of ideas.
    tsPreCompilationDeps: true,
  },
};
