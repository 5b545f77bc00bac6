/**
 * The registry's pages (docs/_index.md, docs/installation-configuration.md) show only what CI
 * runs: their YAML and Go programs are the examples' files to the letter (test/e2e/examples runs
 * them), their TypeScript compiles (test/e2e/docs/snippets.test.ts, over every shipped document), and
 * the plugin install command names the version and the source the schema gives.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../../../src/client/version";
import { PLUGIN_DOWNLOAD_URL } from "../../../src/hosts/native/schema";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { codeBlocks } from "../../support/docs";

const read = (relative: string) => fs.readFileSync(path.join(REPO_ROOT, relative), "utf8");

describe("the registry's pages", () => {
  it("docs/_index.md: its YAML and Go programs are examples/yaml and examples/go, word for word", () => {
    const index = read("docs/_index.md");
    expect(codeBlocks(index, ["yaml"])).toEqual([read("examples/yaml/Pulumi.yaml"), read("examples/go/Pulumi.yaml")]);
    expect(codeBlocks(index, ["go"])).toEqual([read("examples/go/main.go")]);
    expect(codeBlocks(index, ["ts"])).toHaveLength(1);
  });

  it("the projects a reader may follow in one backend have different names (a second `stack init dev` of one name fails)", () => {
    const names = ["README.md", "docs/_index.md", "docs/installation-configuration.md"].flatMap((page) =>
      [...read(page).matchAll(/^name: (\S+)$/gm)].map((m) => m[1]),
    );
    expect(names).toEqual(["my-clusters", "clusters", "cms-go", "native-clusters"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("each page has the registry's front matter", () => {
    for (const page of ["docs/_index.md", "docs/installation-configuration.md"]) {
      expect(read(page), page).toMatch(/^---\ntitle: .+\nmeta_desc: .+\nlayout: package\n---\n/);
    }
  });

  it("docs/installation-configuration.md: the plugin install command names this version and the schema's source", () => {
    const commands = codeBlocks(read("docs/installation-configuration.md"), ["bash"]).join("\n");
    expect(commands).toContain(`pulumi plugin install resource cms ${PACKAGE_VERSION} --server ${PLUGIN_DOWNLOAD_URL}`);
  });

  it("the YAML resource options that make the engine fetch the plugin, and the README's install command, name this version and the schema's source", () => {
    const options = codeBlocks(read("docs/installation-configuration.md"), ["yaml"]).find((b) => b.includes("pluginDownloadURL"));
    expect(options).toContain(`    options:\n      version: ${PACKAGE_VERSION}\n      pluginDownloadURL: ${PLUGIN_DOWNLOAD_URL}\n`);
    expect(read("README.md").replace(/\n/g, " ")).toContain(
      `pulumi plugin install resource cms ${PACKAGE_VERSION} --server ${PLUGIN_DOWNLOAD_URL}`,
    );
  });
});
