/** Helpers for tests that run the documentation's commands as written and check its snippets and links. */
import GithubSlugger from "github-slugger";
import MarkdownIt from "markdown-it";

export { stillAnswering } from "../../packages/emulator/test/support/emulator";
export { bashBlockAfter } from "./doc-blocks.mjs";

const markdown = new MarkdownIt();

/** The fenced code blocks of `text` whose info string (language) is one of `languages`. */
export function codeBlocks(text: string, languages: readonly string[]): string[] {
  return markdown
    .parse(text, {})
    .filter((t) => t.type === "fence" && languages.includes(t.info.trim()))
    .map((t) => t.content);
}

/** Every link target of `text` (`[...](target)` and `<target>`), outside code. */
export function linkTargets(text: string): string[] {
  const out: string[] = [];
  for (const block of markdown.parse(text, {})) {
    for (const t of block.children ?? []) {
      if (t.type === "link_open") out.push(t.attrGet("href") ?? "");
    }
  }
  return out;
}

/** The anchors GitHub (and npm's page) gives the headings of `text`. */
export function headingAnchors(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(text, {});
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type !== "heading_open") return;
    const inline = tokens[i + 1];
    const words = (inline.children ?? []).map((c) => c.content).join("");
    anchors.add(slugger.slug(words));
  });
  return anchors;
}
