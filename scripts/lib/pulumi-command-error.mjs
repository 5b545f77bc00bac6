// @ts-check
/** Error of a CLI command that was expected to succeed; carries its result. */
export class PulumiCommandError extends Error {
  /** @param {import("./pulumi-driver.mjs").RunResult} result */
  constructor(result) {
    const tail = result.output.split("\n").slice(-60).join("\n");
    super(
      `\`${result.command}\` exited with ${result.code}${result.timedOut ? " (timed out)" : ""} after ${result.durationMs} ms:\n${tail}`,
    );
    this.name = "PulumiCommandError";
    this.result = result;
  }
}
