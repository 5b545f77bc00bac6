import { CmsError } from "./cms-error";

/**
 * An operation's failure already worded for the user, with its context (which cluster, which
 * operation) and no secret: whoever catches it passes it on as it is instead of wrapping it again.
 */
export class OperationError extends CmsError {
  /**
   * The code of the failure it words when that is one of the package's (`not_found`,
   * `invalid_response`, …), else `operation_failed`; `cluster_lookup_failed` for a `ClusterLookupError`.
   */
  readonly code: string;

  constructor(message: string, code = "operation_failed") {
    super(message);
    this.code = code;
    this.name = "OperationError";
  }
}
