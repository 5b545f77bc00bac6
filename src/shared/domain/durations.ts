/**
 * Go-style duration strings ("30m", "1h30m", "90s", "1.5h"), the format Pulumi's
 * `customTimeouts` resource option uses (the engine parses it with Go's `time.ParseDuration`),
 * so a value the CLI accepts means the same thing here.
 */
import { InvalidArgumentError } from "../errors/invalid-argument-error";

/** Milliseconds per unit, keyed by every unit spelling Go accepts. */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

// One "<number><unit>" term. Units are tried longest first so "ms" is not read as "m" + "s".
const TERM = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parse a Go duration string into milliseconds.
 *
 * Accepts what Go's `time.ParseDuration` accepts: an optional sign, then one or more terms of a
 * decimal number and a unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), or the bare string `"0"`.
 *
 * @throws Error naming the rule when the text is not a duration (e.g. `"30"` has no unit).
 */
export function parseDuration(text: string): number {
  if (typeof text !== "string") {
    throw new InvalidArgumentError(`expected a duration string such as "30m" or "1h30m", got ${typeof text}`);
  }
  let rest = text.trim();
  if (rest === "") throw new InvalidArgumentError('empty duration: use a value such as "30m" or "1h30m"');
  let sign = 1;
  if (rest[0] === "+" || rest[0] === "-") {
    sign = rest[0] === "-" ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new InvalidArgumentError(`invalid duration "${text}": a number and a unit are required`);
  let total = 0;
  while (rest.length > 0) {
    const m = TERM.exec(rest);
    if (!m) {
      throw new InvalidArgumentError(
        `invalid duration "${text}": each part must be a number followed by a unit ` +
          `(h, m, s, ms, us, ns), for example "30m", "1h30m" or "90s"`,
      );
    }
    total += Number(m[1]) * UNIT_MS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/**
 * Render milliseconds the way a person reads a timeout: "30m", "1h30m", "90s" becomes "1m30s".
 * Used in messages only, never parsed back.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  let seconds = Math.round(ms / 1_000);
  const h = Math.floor(seconds / 3_600);
  seconds -= h * 3_600;
  const m = Math.floor(seconds / 60);
  const s = seconds - m * 60;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s || (!h && !m) ? `${s}s` : ""}`;
}
