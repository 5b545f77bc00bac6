/** Helpers for tests that run the documentation's commands as written. */

/**
 * The first ```bash block after the line `heading` (e.g. `## Try it offline…` or `### Merge`) of
 * `markdown`; `source` names the file in errors.
 */
export function bashBlockAfter(markdown: string, heading: string, source: string): string {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${source} has no "${heading}" section`);
  const m = /```bash\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (!m) throw new Error(`${source}: no bash block under "${heading}"`);
  return m[1];
}

/** Whether `url` still answers after waiting up to `timeoutMs` for it to stop (a stopped server). */
export async function stillAnswering(url: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answering = await fetch(url).then(
      () => true,
      () => false,
    );
    if (!answering || Date.now() >= deadline) return answering;
    await new Promise((r) => setTimeout(r, 200));
  }
}
