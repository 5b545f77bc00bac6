/**
 * The provider every Cluster hands to `pulumi.dynamic.Resource`, as the exports of the pinned
 * `dist/provider/entry.js` (a generated stub re-exporting this module's; `serialized-entry.ts`).
 *
 * Pulumi serializes a value that is the exports of a module in `node_modules` as a `require` of
 * that module. So a stack of the installed package holds, for each Cluster, a provider text of a
 * few lines, `require("pulumi-cms/dist/provider/entry.js")`, instead of every method's code: the
 * state keeps that text twice per Cluster (inputs and outputs), and the engine writes the whole
 * state after every step. That specifier is therefore part of the state contract (CHANGELOG.md,
 * "Versioning policy"), like `cluster-provider.js`, which the texts of earlier releases load
 * (`PINNED_MODULES` in `serializable.ts`).
 *
 * Where the package is not installed (a program importing the repository's `dist` by path), the
 * serializer copies these functions instead, and each requires the implementation by the path
 * `implementationSpecifier` gives: the pinned `dist/provider/cluster-provider.js`.
 *
 * Everything exported here is a method of the provider: nothing else may be. Each loads the
 * implementation (`cluster-provider.ts`) on its first call, inside the host; the program never
 * loads it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { implementationSpecifier } from "./serializable";

const IMPLEMENTATION = implementationSpecifier(__filename);

type Provider = Required<pulumi.dynamic.ResourceProvider>;

// Resolved on the first call, inside the host; Node caches the module afterwards.
function load(): Provider {
  return require(IMPLEMENTATION).clusterProvider;
}

/** See `provider.ts`. */
export function configure(...args: Parameters<Provider["configure"]>): ReturnType<Provider["configure"]> {
  return load().configure(...args);
}

/** See `provider/operations/check.ts`. */
export function check(...args: Parameters<Provider["check"]>): ReturnType<Provider["check"]> {
  return load().check(...args);
}

/** See `provider/operations/diff.ts`. */
export function diff(...args: Parameters<Provider["diff"]>): ReturnType<Provider["diff"]> {
  return load().diff(...args);
}

/** See `provider/operations/create.ts`. */
export function create(...args: Parameters<Provider["create"]>): ReturnType<Provider["create"]> {
  return load().create(...args);
}

/** See `provider/operations/read.ts`. */
export function read(...args: Parameters<Provider["read"]>): ReturnType<Provider["read"]> {
  return load().read(...args);
}

/** See `provider/operations/update.ts`. */
export function update(...args: Parameters<Provider["update"]>): ReturnType<Provider["update"]> {
  return load().update(...args);
}

/** See `provider/operations/delete.ts`. (`delete` is a reserved word for a function's own name.) */
function remove(...args: Parameters<Provider["delete"]>): ReturnType<Provider["delete"]> {
  return load().delete(...args);
}
export { remove as delete };
