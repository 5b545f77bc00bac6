/**
 * `pulumi-cms/emulator`, deprecated: the emulator is its own package, `@pulumi-cms/emulator`,
 * so that installing the provider installs no server. This entry re-exports that package (with
 * one deprecation warning) when it is installed, and says what to install when it is not. It
 * goes away in the next minor release.
 *
 * @deprecated Install `@pulumi-cms/emulator` and import from it.
 * @module
 */

const MOVED = "@pulumi-cms/emulator";

ensureMovedPackage();

export * from "@pulumi-cms/emulator";

/** Throws what to install when the emulator's package is missing; else warns once per process (modules load once). */
function ensureMovedPackage(): void {
  try {
    require.resolve(MOVED);
  } catch {
    throw new Error(
      `pulumi-cms/emulator has moved to its own package, ${MOVED}, which is not installed. ` +
        `Install it with \`npm install --save-dev ${MOVED}\`, then import from "${MOVED}" ` +
        "(its command is `npx cms-emulator`).",
    );
  }
  process.emitWarning(
    `pulumi-cms/emulator is deprecated: import from "${MOVED}" instead (same exports); it goes away in pulumi-cms 0.4.0.`,
    {
      type: "DeprecationWarning",
      code: "PULUMI_CMS_EMULATOR_MOVED",
    },
  );
}
