/**
 * The dynamic-provider host turns an error that carries `id` into the engine's "resource
 * initialization failed" partial failure, which records the cluster (id and properties) in the
 * stack although the operation failed. Without it a failed wait would forget a cluster that exists
 * and bills.
 */
import { CmsError } from "../../shared/errors/cms-error";

/**
 * The cluster exists but did not reach a usable state (it ended in `error`, or the wait timed out
 * or was cut short). The host reads `id`, `properties` and `reasons` (see `grpcResponseFromError`
 * in @pulumi/pulumi's cmd/dynamic-provider) and the engine keeps the resource, with these
 * properties and the reasons as init errors, so the next `pulumi up` continues from it.
 */
export class ClusterInitError extends CmsError {
  /** Always `cluster_not_ready`. */
  readonly code = "cluster_not_ready";
  /** Id of the cluster that exists. */
  readonly id: string;
  /** Outputs to record; must include `__provider` so later operations can load the provider. */
  readonly properties: Record<string, unknown>;
  /** Human-readable reasons, shown by the engine and kept in state. */
  readonly reasons: string[];

  constructor(message: string, id: string, properties: Record<string, unknown>, reasons: string[] = [message]) {
    super(message);
    this.name = "ClusterInitError";
    this.id = id;
    this.properties = properties;
    this.reasons = reasons;
  }
}
