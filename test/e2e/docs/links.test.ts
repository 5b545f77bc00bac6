/**
 * The links between this repository's documents, read in the repository (test/e2e/upgrade/tarball-links.test.ts
 * reads the shipped ones from the tarball): every relative link of README.md, CONTRIBUTING.md,
 * docs/*.md and the examples' READMEs names a file or directory that exists, and a `#anchor` names
 * a heading of that file; a link into the repository's own URL (`…/blob/main/PATH`) is held to
 * the same. Starts nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { headingAnchors, linkTargets } from "../../support/docs";

const REPOSITORY = /^https:\/\/github\.com\/pulumi-cms\/pulumi-cms\/(?:blob|tree)\/main\/([^#]*?)\/?(#.*)?$/;

const DOCUMENTS = [
  "README.md",
  "CONTRIBUTING.md",
  ...fs
    .readdirSync(path.join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(REPO_ROOT, "examples"))
    .map((d) => `examples/${d}/README.md`)
    .filter((f) => fs.existsSync(path.join(REPO_ROOT, f))),
].sort();

/** What is wrong with the link `target` of `doc` (a path from the repository's root), or undefined. */
function brokenLink(doc: string, target: string): string | undefined {
  const inRepository = REPOSITORY.exec(target);
  let file: string;
  let anchor: string | undefined;
  if (inRepository) {
    file = inRepository[1] === "" ? "." : inRepository[1];
    anchor = inRepository[2]?.slice(1);
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return undefined; // elsewhere on the web: not this test's
  } else {
    const [where, hash] = target.split("#", 2) as [string, string | undefined];
    file = where === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), where));
    anchor = hash;
  }
  if (file.startsWith("../")) return `${file} is outside the repository`;
  const full = path.join(REPO_ROOT, file);
  if (!fs.existsSync(full)) return `no file ${file}`;
  if (anchor === undefined || !file.endsWith(".md")) return undefined;
  return headingAnchors(fs.readFileSync(full, "utf8")).has(anchor) ? undefined : `no heading #${anchor} in ${file}`;
}

describe("the links between the repository's documents", () => {
  it.each(DOCUMENTS)("%s: every relative link resolves to a file, and its anchor to a heading", (doc) => {
    const broken = linkTargets(fs.readFileSync(path.join(REPO_ROOT, doc), "utf8"))
      .map((target) => [target, brokenLink(doc, target)])
      .filter(([, why]) => why !== undefined)
      .map(([target, why]) => `${target}: ${why}`);
    expect(broken).toEqual([]);
  });

  it("finds a missing file, a missing heading and a link out of the repository (it is not vacuous)", () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(["README.md", "docs/_index.md", "docs/installation-configuration.md"]));
    expect(brokenLink("README.md", "docs/no-such-page.md")).toMatch(/no file docs\/no-such-page\.md/);
    expect(brokenLink("README.md", "#no-such-heading")).toMatch(/no heading #no-such-heading in README\.md/);
    expect(brokenLink("docs/native.md", "cluster.md#no-such-heading")).toMatch(/no heading #no-such-heading in docs\/cluster\.md/);
    expect(brokenLink("docs/native.md", "../../elsewhere.md")).toMatch(/outside the repository/);
    expect(brokenLink("README.md", "https://github.com/pulumi-cms/pulumi-cms/blob/main/docs/nothing.md")).toMatch(/no file/);
    expect(brokenLink("docs/native.md", "cluster.md#which-cluster-is-whose")).toBeUndefined();
    expect(brokenLink("README.md", "https://github.com/pulumi-cms/pulumi-cms/tree/main/examples")).toBeUndefined();
  });
});
