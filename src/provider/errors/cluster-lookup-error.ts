import { OperationError } from "../../shared/errors/operation-error";

/**
 * `Cluster.get` found no cluster it may record: the id does not exist, the token in use cannot see
 * it, or it is being deleted. The run fails naming the id: an empty result would record a
 * resource without a kubeconfig.
 */
export class ClusterLookupError extends OperationError {
  /** The id `Cluster.get` was given. */
  readonly id: string;

  constructor(message: string, id: string) {
    super(message, "cluster_lookup_failed");
    this.name = "ClusterLookupError";
    this.id = id;
  }
}
