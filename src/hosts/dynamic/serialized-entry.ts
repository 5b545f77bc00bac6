/**
 * What a Cluster hands `pulumi.dynamic.Resource` as its provider: the exports of the pinned
 * `dist/provider/entry.js` (`PINNED_MODULES` in `serializable.ts`), the methods of `entry.ts`.
 *
 * The serializer writes the path of the module whose exports it is given into every stack's
 * state, so the object must be the pinned stub's own: the stub puts this folder's functions on an
 * exports object of its own, which no other module's exports are, whichever of the two loaded first.
 */
import * as entry from "./entry";
import { PINNED_MODULES, pinnedPath } from "./serializable";

/** The provider object of every Cluster. */
export function serializedEntry(): typeof entry {
  // Run from the TypeScript sources (the tests), there is no build and so no pinned stub.
  if (__filename.endsWith(".ts")) return entry;
  return require(pinnedPath(__filename, PINNED_MODULES.entry.pinned));
}
