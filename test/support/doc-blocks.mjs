// @ts-check
/** Reading the documentation's commands as written, for the tests and benchmarks that run them (plain `node` loads it). */

/**
 * The first ```bash block after the line `heading` (e.g. `## Try it offline…` or `### Merge`) of
 * `markdown`; `source` names the file in errors.
 *
 * @param {string} markdown
 * @param {string} heading
 * @param {string} source
 * @returns {string}
 */
export function bashBlockAfter(markdown, heading, source) {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${source} has no "${heading}" section`);
  const m = /```bash\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (!m) throw new Error(`${source}: no bash block under "${heading}"`);
  return m[1];
}
