/** Where progress lines go: the host's sink (`progress.ts`), or a tool's or a test's (`../settings.ts`). */
export interface ProgressSink {
  /**
   * Show `message` for the resource `urn` (transient: replaced by the next line). A sink without
   * {@link end} gets an operation's last line here too, and then resolves once it is delivered.
   */
  report(urn: string, message: string): void | Promise<void>;
  /**
   * Show the last line of an operation for `urn`, and resolve once it is delivered: the CLI keeps
   * showing a resource's last line next to its final status, so it must be sent before the
   * operation returns. It may be left out when no earlier line of the operation was shown, unless
   * `always` (the line says something the outcome alone does not, such as an import). Sinks
   * without it get {@link report}.
   */
  end?(urn: string, message: string, always?: boolean): Promise<void>;
  /**
   * Show a warning for the resource `urn` that stays in the CLI's output (diagnostics).
   * Resolves once delivered (or given up on): await it before the operation returns, or the
   * engine may finish the step before the warning arrives.
   */
  warn?(urn: string, message: string): Promise<void>;
}
