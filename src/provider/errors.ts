/**
 * Errors the provider raises, one class per file in `errors/`. Decisions about a failure are made
 * on its class, never on its message: rewording a message changes nothing else.
 *
 * This list is a file beside the folder rather than the folder's `index.ts`: Node resolves
 * `./errors` to a file `errors.js` before a folder's index, so a build made over an older one
 * (which has `dist/provider/errors.js`) would load the old file.
 */
export { ClusterInitError } from "./errors/cluster-init-error";
export { ClusterLookupError } from "./errors/cluster-lookup-error";
export { OperationError } from "../shared/errors/operation-error";
