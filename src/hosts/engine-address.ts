/**
 * The engine's address among a plugin's arguments. The engine starts each plugin with its address
 * as the last argument, after the flags of its own logging when the CLI runs with them
 * (`--logtostderr`, `-v=9`, `--logflow`, `--tracing URL`).
 */
export function engineAddressFromArgs(args: readonly string[]): string | undefined {
  const addr = [...args].reverse().find((a) => !a.startsWith("-"));
  return addr && /^[\w.\-[\]:]+:\d+$/.test(addr) ? addr : undefined;
}
