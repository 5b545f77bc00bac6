/**
 * Errors the provider raises, one class per file. Decisions about a failure are made on its class,
 * never on its message: rewording a message changes nothing else.
 */
export { ClusterInitError } from "./cluster-init-error";
export { ClusterLookupError } from "./cluster-lookup-error";
export { OperationError } from "./operation-error";
