/**
 * How `@pulumi/pulumi` tells a `RunError` (`RunError.isInstance`, which works across copies of the
 * SDK): its program runner prints such an error's message alone, without the stack.
 */
const RUN_ERROR_MARK = "__pulumiRunError";

/**
 * `e`, marked so that the Pulumi program runner prints its message alone if the program leaves it
 * uncaught. Its stack is emptied too: the runner still formats an uncaught error that has one with
 * `util.inspect`, for its trace, and that held a failing program for most of a minute (garbage
 * collection, in its CPU profile) before the message was shown; without a stack it takes the message.
 */
export function shownAsMessage(e: unknown): unknown {
  if (e instanceof Error && (e as unknown as Record<string, unknown>)[RUN_ERROR_MARK] !== true) {
    Object.defineProperty(e, RUN_ERROR_MARK, { value: true });
    e.stack = "";
  }
  return e;
}
