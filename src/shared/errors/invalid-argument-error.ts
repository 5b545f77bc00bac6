import { CmsError } from "./cms-error";

/**
 * A value the program (or the stack's configuration) passed breaks a rule: the message names the
 * argument and the rule. Code `invalid_argument`. Raised before any API call.
 */
export class InvalidArgumentError extends CmsError {
  /** Always `invalid_argument`. */
  readonly code = "invalid_argument";

  constructor(message: string) {
    super(message);
    this.name = "InvalidArgumentError";
  }
}
