/**
 * The GitHub workflows (.github/workflows), which CI cannot run: every one passes actionlint
 * (scripts/ensure-actionlint, the pinned version), which is shown failing on broken copies; and the
 * release workflow does what CONTRIBUTING's Release section says, in that order. Its tag check
 * is run here as the workflow runs it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

const WORKFLOWS = path.join(REPO_ROOT, ".github/workflows");
const RELEASE = path.join(WORKFLOWS, "release.yml");
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;

let actionlint: string;
let dir: string;

beforeAll(() => {
  // Built once into the cache (about 25 s on 2 cores); CI starts that build beside its others.
  const out = execFileSync(path.join(REPO_ROOT, "scripts/ensure-actionlint"), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  actionlint = path.join(out.trim().split("\n").at(-1) ?? "", "actionlint");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-workflow-"));
}, 600_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** actionlint on `files`: its exit code and report. shellcheck and pyflakes, which it runs when on PATH, are off: the result is the same on every machine. */
function lint(files: string[]): { code: number; output: string } {
  try {
    const output = execFileSync(actionlint, ["-no-color", "-shellcheck=", "-pyflakes=", ...files], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { code: 0, output };
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    return { code: err.status ?? -1, output: `${err.stdout ?? ""}${err.stderr ?? ""}` };
  }
}

/** A copy of release.yml with `from` replaced by `to` (which must occur). */
function brokenCopy(name: string, from: string, to: string): string {
  const text = fs.readFileSync(RELEASE, "utf8");
  expect(text).toContain(from);
  const file = path.join(dir, `${name}.yml`);
  fs.writeFileSync(file, text.replace(from, to));
  return file;
}

describe("the GitHub workflows", () => {
  it("pass actionlint", () => {
    const files = fs
      .readdirSync(WORKFLOWS)
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => path.join(WORKFLOWS, f));
    expect(files).toContain(RELEASE);
    const { code, output } = lint(files);
    expect(output).toBe("");
    expect(code).toBe(0);
  });

  it.each([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
    ["a typo'd expression in runs-on", "runs-on: macos-latest", "runs-on: ${{ matrx.os }}", /undefined variable "matrx"/],
    [
      "a job needing a job that does not exist",
      "needs: [archives, sign-macos]",
      "needs: [archives, sign-mac]",
      /"sign-mac" which does not exist/,
    ],
    ["an input the action does not have", "if-no-files-found: error", "if-no-file-found: error", /input "if-no-file-found" is not defined/],
  ])("fail actionlint with %s", (_what, from, to, report) => {
    const { code, output } = lint([brokenCopy(`broken-${from.length}`, from, to)]);
    expect(code).toBe(1);
    expect(output).toMatch(report);
  });
});

describe("the release workflow", () => {
  const workflow: any = parse(fs.readFileSync(RELEASE, "utf8"));
  const steps = (job: string): { uses?: string; run?: string; name?: string; with?: Record<string, unknown> }[] => workflow.jobs[job].steps;
  const runOf = (job: string, pattern: RegExp): string => {
    const step = steps(job).find((s) => s.run && pattern.test(s.run));
    expect(step, `a step of ${job} running ${pattern}`).toBeDefined();
    return step?.run ?? "";
  };

  it("runs on a vX.Y.Z tag, reading the repository unless a job says otherwise", () => {
    expect(workflow.on).toEqual({ push: { tags: ["v*.*.*"] } });
    expect(workflow.permissions).toEqual({ contents: "read" });
  });

  it("checks the tag against every version before building the archives of every platform on Linux", () => {
    expect(workflow.jobs.archives["runs-on"]).toMatch(/^ubuntu-/);
    const all = steps("archives").map((s) => s.run ?? s.uses ?? "");
    const check = all.findIndex((r) => r.includes("scripts/versions.mjs check --tag"));
    const build = all.indexOf("npm run build");
    const release = all.findIndex((r) => r.includes("scripts/release.mjs --platforms all"));
    expect(check).toBeGreaterThanOrEqual(0);
    expect(build).toBeGreaterThan(check);
    expect(release).toBeGreaterThan(build);
    expect(steps("archives").find((s) => s.uses?.startsWith("actions/setup-node@"))?.with?.["node-version"]).toBe(22);
  });

  it("signs the darwin executables on macOS, then recomputes SHA256SUMS", () => {
    expect(workflow.jobs["sign-macos"]["runs-on"]).toMatch(/^macos-/);
    expect(workflow.jobs["sign-macos"].needs).toBe("archives");
    const run = runOf("sign-macos", /codesign/);
    expect(run).toMatch(/codesign --sign "\$identity" --force/);
    expect(run.indexOf("shasum -a 256")).toBeGreaterThan(run.indexOf("codesign --sign"));
  });

  it("publishes, after both, the GitHub release and then the three packages with provenance, the contract first", () => {
    const publish = workflow.jobs.publish;
    expect(publish.needs).toEqual(["archives", "sign-macos"]);
    expect(publish.permissions).toEqual({ contents: "write", "id-token": "write" });
    expect(runOf("publish", /gh release create/)).toContain('"$ARCHIVES"/*');
    const npm = runOf("publish", /npm publish/);
    expect(npm).toContain("npm publish --provenance --access public");
    const order = ["publish @pulumi-cms/contract", "publish @pulumi-cms/emulator", "publish pulumi-cms"].map((p) => npm.indexOf(p));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("uses the pinned major versions of GitHub's actions", () => {
    const used = Object.keys(workflow.jobs).flatMap((job) => steps(job).flatMap((s) => (s.uses ? [s.uses] : [])));
    expect(new Set(used)).toEqual(
      new Set(["actions/checkout@v4", "actions/setup-node@v4", "actions/upload-artifact@v4", "actions/download-artifact@v4"]),
    );
  });

  it("its tag check, run as the workflow runs it, passes on v<version> and fails on another tag", () => {
    const run = runOf("archives", /scripts\/versions\.mjs check/);
    const withTag = (tag: string) => {
      try {
        execFileSync("bash", ["-euo", "pipefail", "-c", run], {
          cwd: REPO_ROOT,
          env: { ...process.env, GITHUB_REF_NAME: tag },
          stdio: "pipe",
        });
        return 0;
      } catch (e) {
        return (e as { status?: number }).status ?? -1;
      }
    };
    expect(withTag(`v${VERSION}`)).toBe(0);
    expect(withTag("v0.0.0-not-this")).toBe(1);
  });
});
