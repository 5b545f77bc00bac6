/**
 * Every link of the documents in the tarball resolves for someone who has only the tarball (an
 * npm user reading `node_modules/pulumi-cms/README.md`, or its page on the registry): a relative
 * link names a file the tarball holds (and a heading it has), and anything else links into the
 * repository named by package.json's `repository`, at a file the repository holds.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { headingAnchors, linkTargets } from "../../support/docs";
import { CONTRACT_PACKAGE, EMULATOR_PACKAGE, PROVIDER_DOCUMENTS, packTarball, workDir } from "../../support/packages";

/** `https://host/owner/name`, from package.json's `repository.url` (`git+https://…/name.git`). */
function repositoryUrl(pkg: { repository?: { url?: string } }): string {
  return (pkg.repository?.url ?? "").replace(/^git\+/, "").replace(/\.git$/, "");
}

/**
 * What is wrong with the link `target` of the document `doc` (a path inside `root`), or
 * undefined. `inRepository(relative path)` says whether the repository holds that path.
 */
function brokenLink(
  target: string,
  doc: string,
  root: string,
  repository: string,
  inRepository: (p: string) => string | undefined,
): string | undefined {
  const [where, anchor] = target.split("#", 2) as [string, string | undefined];
  const anchorIn = (file: string, text: string) =>
    anchor === undefined || !file.endsWith(".md") || headingAnchors(text).has(anchor) ? undefined : `no heading #${anchor} in ${file}`;
  if (where === "") return anchorIn(doc, fs.readFileSync(path.join(root, doc), "utf8"));
  const inRepo = new RegExp(`^${repository.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(?:blob|tree)/main/(.+?)/?$`).exec(where);
  if (inRepo) {
    const text = inRepository(inRepo[1]);
    if (text === undefined) return `the repository holds no ${inRepo[1]}`;
    return anchorIn(inRepo[1], text);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(where)) return "leads outside the package and its repository";
  const file = path.posix.normalize(path.posix.join(path.posix.dirname(doc), where));
  if (file.startsWith("../")) return `${file} is outside the package: link it in the repository (${repository})`;
  const full = path.join(root, file);
  if (!fs.existsSync(full)) return `the tarball holds no ${file}: ship it, or link it in the repository (${repository})`;
  return fs.statSync(full).isFile() ? anchorIn(file, fs.readFileSync(full, "utf8")) : undefined;
}

/** The text of a file the repository tracks (a directory: ""), or undefined. */
function fromRepository(relative: string): string | undefined {
  const tracked = execFileSync("git", ["ls-files", "--", relative], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  if (tracked === "") return undefined;
  const full = path.join(REPO_ROOT, relative);
  return fs.statSync(full).isFile() ? fs.readFileSync(full, "utf8") : "";
}

/** Each package of the repository, with the documents its tarball must ship. */
const PACKAGES = [
  {
    name: "pulumi-cms",
    dir: REPO_ROOT,
    shipped: [...PROVIDER_DOCUMENTS],
  },
  { name: "@pulumi-cms/emulator", dir: EMULATOR_PACKAGE, shipped: ["README.md", "docs/kubernetes.md"] },
  { name: "@pulumi-cms/contract", dir: CONTRACT_PACKAGE, shipped: ["README.md"] },
];

describe.each(PACKAGES)("the links of the documents in the tarball of $name", ({ dir, shipped }) => {
  let work: string;
  let root: string;
  let repository: string;
  let docs: string[];

  beforeAll(() => {
    work = workDir("links");
    execFileSync("tar", ["-xzf", packTarball(work, dir), "-C", work]);
    root = path.join(work, "package");
    repository = repositoryUrl(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")));
    docs = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".md")).sort();
  }, 120_000);
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("ships the documents the README links to, and a repository URL for the rest", () => {
    expect(docs).toEqual(expect.arrayContaining(shipped));
    expect(repository).toMatch(/^https:\/\/\S+\/pulumi-cms$/);
  });

  it("every link resolves: to a file (and heading) of the tarball, or to a file of the repository", () => {
    const broken: string[] = [];
    for (const doc of docs) {
      for (const target of linkTargets(fs.readFileSync(path.join(root, doc), "utf8"))) {
        const why = brokenLink(target, doc, root, repository, fromRepository);
        if (why) broken.push(`${doc}: ${target}: ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.runIf(dir === REPO_ROOT)(
    "the check finds a link to a file the tarball lacks, a missing heading, and a link elsewhere (it is not vacuous)",
    () => {
      const check = (target: string) => brokenLink(target, "README.md", root, repository, fromRepository);
      expect(check("CONTRIBUTING.md")).toMatch(/the tarball holds no CONTRIBUTING\.md/);
      expect(check("docs/benchmarks.md")).toMatch(/the tarball holds no docs\/benchmarks\.md/);
      expect(check("#no-such-heading")).toMatch(/no heading #no-such-heading/);
      expect(check("docs/gitops.md#no-such-heading")).toMatch(/no heading/);
      expect(check(`${repository}/blob/main/no/such/file.md`)).toMatch(/the repository holds no/);
      expect(check("https://example.com/")).toMatch(/outside the package/);
      expect(check(`${repository}/blob/main/CONTRIBUTING.md#the-pulumi-cli`)).toBeUndefined();
      expect(check("docs/gitops.md#a-killed-job")).toBeUndefined();
    },
  );
});
