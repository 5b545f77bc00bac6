/**
 * Loading `@pulumi/kubernetes` on demand. It is an optional peer dependency of pulumi-cms:
 * programs that never ask for a Kubernetes provider must be able to import the package without
 * it, so nothing here runs (and nothing is required) until {@link loadKubernetes} is called.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { OperationError } from "../shared/errors/operation-error";

/** The package this module loads. */
export const KUBERNETES_PACKAGE = "@pulumi/kubernetes";

/** The part of `@pulumi/kubernetes` this package uses. */
export interface KubernetesModule {
  Provider: new (name: string, args: Record<string, unknown>, opts?: object) => import("@pulumi/pulumi").ProviderResource;
}

/**
 * Require `@pulumi/kubernetes`, preferring the copy the program itself would get (resolved from
 * the working directory, which Pulumi sets to the project's directory). When pulumi-cms is
 * linked (`npm link`, `"file:../.."`) its own resolution would find the copy next to the
 * linked checkout instead, and the program would mix two copies. Falls back to pulumi-cms's own
 * resolution (a normal install, where both are the same).
 *
 * @param requireFn the fallback `require` (tests pass their own)
 * @param cwd directory to resolve from first
 * @throws Error telling how to install the package when neither resolution finds it
 */
export function loadKubernetes(requireFn: NodeJS.Require = require, cwd: string = process.cwd()): KubernetesModule {
  const fromProgram = tryRequire(createRequire(path.join(cwd, "package.json")));
  if (fromProgram) return fromProgram;
  const own = tryRequire(requireFn);
  if (own) return own;
  throw new OperationError(
    `cms.kubernetesProvider needs the ${KUBERNETES_PACKAGE} package, an optional peer dependency of ` +
      `pulumi-cms: install it in your project (npm install ${KUBERNETES_PACKAGE}).`,
    "missing_dependency",
  );
}

/** The module, or undefined when this `require` cannot find it. Other load errors propagate. */
function tryRequire(req: NodeJS.Require): KubernetesModule | undefined {
  try {
    return req(KUBERNETES_PACKAGE) as KubernetesModule;
  } catch (e) {
    // Only "this package is not installed" means "try elsewhere"; a broken install must surface.
    const err = e as NodeJS.ErrnoException;
    if (err?.code === "MODULE_NOT_FOUND" && String(err.message).includes(`'${KUBERNETES_PACKAGE}'`)) return undefined;
    throw e;
  }
}
