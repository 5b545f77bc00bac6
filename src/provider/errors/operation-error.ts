/**
 * An operation's failure already worded for the user, with its context (which cluster, which
 * operation) and no secret: whoever catches it passes it on as it is instead of wrapping it again.
 */
export class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OperationError";
  }
}
