import { CmsError } from "../../shared/errors/cms-error";

/**
 * An id that is not of its documented shape (`cls_…`, `node_…`) was about to go into a request
 * path: nothing was sent. Code `invalid_id`.
 */
export class InvalidIdError extends CmsError {
  /** Always `invalid_id`. */
  readonly code = "invalid_id";
  /** Which id: a cluster's or a node's. */
  readonly kind: "cluster" | "node";

  constructor(message: string, kind: "cluster" | "node") {
    super(message);
    this.name = "InvalidIdError";
    this.kind = kind;
  }
}
