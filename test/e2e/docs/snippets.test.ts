/**
 * Every TypeScript snippet of the documents a user gets (the README and the docs in the packed
 * packages, the provider's and the emulator's) compiles as written: each alone, and all pasted one after the other into one
 * `index.ts` (the import lines that several snippets repeat written once, as someone pasting
 * them would), with the settings of Pulumi's TypeScript template (CommonJS, `moduleResolution:
 * node`) and as ESM with `nodenext`. The package is the tarball, installed by npm with its peers.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PINNED_PULUMI_VERSION, REPO_ROOT } from "../lifecycle/harness.mjs";
import { codeBlocks } from "../../support/docs";
import {
  EMULATOR_PACKAGE,
  envWithNode,
  installProject,
  nodeBin,
  packTarball,
  PULUMI_TEMPLATE_COMPILER_OPTIONS,
  workDir,
} from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 5 * 60_000;

/** The version of a package this repository has installed (the same in the user's project). */
const installed = (name: string): string =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")).version;

const VARIANTS = [
  {
    name: "Pulumi's TypeScript template (module commonjs, moduleResolution node)",
    type: undefined,
    // Plain diagnostics, one per line, so that each is traced to its snippet.
    options: { ...PULUMI_TEMPLATE_COMPILER_OPTIONS, pretty: false },
  },
  { name: "ESM (type module, module nodenext)", type: "module", options: { strict: true, target: "es2022", module: "nodenext" } },
] as const;

interface Snippet {
  doc: string;
  index: number;
  source: string;
}

/** All snippets in one file: their import lines first, each once, then their bodies in order. */
function pasteTogether(snippets: readonly Snippet[]): string {
  const imports = new Set<string>();
  const bodies: string[] = [];
  for (const { source } of snippets) {
    const lines = source.split("\n");
    for (const line of lines) if (/^import .* from ".*";$/.test(line)) imports.add(line);
    bodies.push(lines.filter((l) => !/^import .* from ".*";$/.test(l)).join("\n"));
  }
  return `${[...imports].join("\n")}\n\n${bodies.join("\n")}`;
}

describe("the documents' TypeScript snippets compile as written, from the packed package", () => {
  let work: string;
  let app: string;
  let snippets: Snippet[];

  beforeAll(async () => {
    work = workDir("snippets");
    const env = envWithNode(nodeBin(22));
    app = await installProject(
      path.join(work, "app"),
      {
        name: "snippets",
        dependencies: {
          "pulumi-cms": `file:${packTarball(work)}`,
          "@pulumi-cms/emulator": `file:${packTarball(work, EMULATOR_PACKAGE)}`,
          "@pulumi/pulumi": PINNED_PULUMI_VERSION,
          "@pulumi/kubernetes": installed("@pulumi/kubernetes"),
        },
        devDependencies: { typescript: installed("typescript"), "@types/node": installed("@types/node") },
      },
      env,
      ["--ignore-scripts"],
    );
    // The documents of both packages, named by their path in node_modules.
    const docs = ["pulumi-cms", "@pulumi-cms/emulator"].flatMap((name) => {
      const pkg = path.join(app, "node_modules", name);
      return ["README.md", ...fs.readdirSync(path.join(pkg, "docs")).map((f) => `docs/${f}`)]
        .filter((f) => f.endsWith(".md"))
        .map((f) => (name === "pulumi-cms" ? f : `${name}/${f}`));
    });
    snippets = docs.flatMap((doc) =>
      codeBlocks(fs.readFileSync(path.join(app, "node_modules", doc.startsWith("@") ? doc : `pulumi-cms/${doc}`), "utf8"), [
        "ts",
        "typescript",
      ]).map((source, i) => ({ doc, index: i + 1, source })),
    );
  }, STEP_TIMEOUT);
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("finds the snippets of the README and of the shipped docs", () => {
    // The README's snippets moved to the docs pages (docs/cluster.md, native.md, kubernetes.md, troubleshooting.md): 8 in all.
    expect(snippets.filter((s) => !s.doc.startsWith("@")).length).toBeGreaterThanOrEqual(8);
    expect(snippets.filter((s) => s.doc === "docs/cluster.md").length).toBeGreaterThanOrEqual(3);
    expect(snippets.some((s) => s.doc === "@pulumi-cms/emulator/README.md")).toBe(true);
  });

  for (const variant of VARIANTS) {
    it(
      `${variant.name}: each alone, and all in one index.ts`,
      async () => {
        const dir = path.join(work, variant.type ?? "commonjs");
        fs.mkdirSync(dir);
        fs.symlinkSync(path.join(app, "node_modules"), path.join(dir, "node_modules"), "dir");
        const files: Record<string, string> = { "index.ts": pasteTogether(snippets) };
        for (const [i, s] of snippets.entries()) files[`snippet-${i + 1}.ts`] = s.source;
        for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
        fs.writeFileSync(
          path.join(dir, "package.json"),
          JSON.stringify({ name: "snippets", private: true, ...(variant.type ? { type: variant.type } : {}) }),
        );
        // One program of separate modules: each snippet file sees only its own declarations.
        fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: variant.options, files: Object.keys(files) }));
        const tsc = path.join(dir, "node_modules", ".bin", "tsc");
        const { stdout } = await execFile(tsc, ["--noEmit", "-p", "tsconfig.json"], { cwd: dir }).catch((e: { stdout?: string }) => ({
          stdout: e.stdout ?? "",
        }));
        const failures = Object.keys(files)
          .map((file) => {
            const errors = stdout.split("\n").filter((l) => l.startsWith(`${file}(`));
            if (errors.length === 0) return undefined;
            const what = file === "index.ts" ? "all snippets pasted together" : describeSnippet(snippets[Number(/\d+/.exec(file)![0]) - 1]);
            return `${what}:\n${errors.join("\n")}\n--- ${file} ---\n${files[file]}`;
          })
          .filter(Boolean);
        expect(failures.join("\n\n")).toBe("");
        expect(stdout).toBe("");
      },
      STEP_TIMEOUT,
    );
  }

  it("pasting keeps each import line once, so a top-level name declared twice is still caught", () => {
    const a = { doc: "a", index: 1, source: 'import * as cms from "pulumi-cms";\nexport const kubeconfig = 1;' };
    const b = { doc: "b", index: 1, source: 'import * as cms from "pulumi-cms";\nexport const kubeconfig = 2;' };
    const pasted = pasteTogether([a, b]);
    expect(pasted.match(/import \* as cms/g)).toHaveLength(1);
    expect(pasted.match(/export const kubeconfig/g)).toHaveLength(2);
  });
});

function describeSnippet(s: Snippet): string {
  return `${s.doc}, TypeScript snippet ${s.index}`;
}
