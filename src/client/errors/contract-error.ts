import { ApiError, type ApiErrorInit } from "./api-error";

/**
 * An answer of the service broke the wire contract (`@pulumi-cms/contract`): a body that is not
 * JSON, a documented field missing or of another type, an id of another shape, another cluster
 * than the one asked for. Code `invalid_response`. Never retried (the same request would get the
 * same answer), and nothing of the answer is used.
 */
export class ContractError extends ApiError {
  /** The field at fault, as a path (`id`, `items[3].status`); absent when the whole body is. */
  readonly field?: string;

  constructor(init: Omit<ApiErrorInit, "code"> & { field?: string }) {
    super({ ...init, code: "invalid_response" });
    if (init.field !== undefined) this.field = init.field;
  }
}
