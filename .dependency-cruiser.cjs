/**
 * The layers of the provider package and the rule against import cycles (`npm run lint`).
 *
 *   shared  <-  client  <-  provider core  <-  hosts  <-  the package's surface
 *
 * - shared (`src/shared/`): wire types, the clock, process slots; imports nothing of the package.
 * - client (`src/client/`): the HTTP client of the service; knows nothing of Pulumi.
 * - provider core (`src/provider/`, `src/connection/`): the Cluster's operations, check, diff,
 *   mapping, naming, ownership and waiting; it does not know how it is hosted.
 * - hosts (`src/hosts/<host>/`): how a Pulumi engine runs the core (`dynamic/`: Pulumi's Node
 *   dynamic-provider host). Also the two files stacks load by path, which stay in
 *   `src/provider/` because their `dist/` paths are the state contract (CHANGELOG.md).
 * - surface (`src/index.ts`, `resources/`, `functions/`, `kubernetes/`, `recover/`, `emulator/`):
 *   what users import and run.
 *
 * A module may import its own layer and the layers below it, never one above.
 */
const CONTRACT_FILES = "^src/provider/(entry|cluster-provider)[.]ts$";
const HOSTS = ["^src/hosts/", CONTRACT_FILES];
const SURFACE = "^src/(index[.]ts$|resources/|functions/|kubernetes/|recover/|emulator/)";

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
      to: { path: "^src/", pathNot: "^src/shared/" },
    },
    {
      name: "client-imports-only-shared",
      comment: "The HTTP client knows nothing of Pulumi, the provider or its hosts.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/(client|shared)/" },
    },
    {
      name: "core-knows-no-host",
      comment: "The provider core does not know how it is hosted, nor what the package's surface is.",
      severity: "error",
      from: { path: "^src/(provider|connection)/", pathNot: CONTRACT_FILES },
      to: { path: [...HOSTS, SURFACE] },
    },
    {
      name: "core-imports-no-pulumi-sdk",
      comment:
        "The provider core works in its own terms (operations/results.ts); each host speaks its engine's. " +
        "connection/stack-config.ts is the exception: the program, not a host, reads the stack configuration.",
      severity: "error",
      from: { path: "^src/(provider|connection)/", pathNot: [CONTRACT_FILES, "^src/connection/stack-config[.]ts$"] },
      to: { path: "node_modules/@pulumi/pulumi" },
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
        "packages/emulator is a package of its own: its code and its tests import nothing of the root's " +
        "test/ or src/ but the shared wire contract and clock its build compiles (src/shared/). The root " +
        "may use the emulator's test helpers (test/support re-exports them), never the reverse.",
      severity: "error",
      from: { path: "^packages/emulator/" },
      to: { path: "^(src|test|scripts|bench)/", pathNot: "^src/shared/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // node_modules stays in the graph, unfollowed, so a rule can name a package (core-imports-no-pulumi-sdk).
    exclude: { path: "(^|/)dist/" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count: a cycle through types is still a cycle of ideas.
    tsPreCompilationDeps: true,
  },
};
