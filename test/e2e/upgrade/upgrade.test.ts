/**
 * The state contract across releases, with the real CLI against the emulator.
 *
 * Every release listed in CHANGELOG.md with a commit is built from git, packed, and installed
 * into two projects the way npm installs a package (a real directory under node_modules, so the
 * serialized provider holds the package specifier, not a path). Each creates a stack. Then the
 * projects are upgraded to the checkout's own package, and:
 * - stack A: refresh, `preview --expect-no-changes`, an in-place update (one PATCH, same id),
 *   destroy;
 * - stack B: destroy straight away, which runs the provider stored in the old state.
 * No cluster is replaced and none is left.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "../lifecycle/harness.mjs";
import { SEED_TYPE } from "../../../src/resources/type-token";
import { CONTRACT_PACKAGE } from "../../support/packages";

const STEP_TIMEOUT = 8 * 60_000;
/** The specifier every release writes into state (CHANGELOG.md, "Versioning policy"). */
const CONTRACT_ENTRY = "pulumi-cms/dist/provider/cluster-provider.js";

/** Releases with the commit they were made from, as CHANGELOG.md lists them. */
function releases(): Array<{ version: string; commit: string }> {
  const text = fs.readFileSync(path.join(REPO_ROOT, "CHANGELOG.md"), "utf8");
  return [...text.matchAll(/^## (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,40})\)/gm)].map((m) => ({ version: m[1], commit: m[2] }));
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-upgrade-"));
const run = (file: string, args: string[], cwd: string) =>
  execFileSync(file, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** `npm pack` a package directory and unpack it: what `npm install` would put in node_modules. */
function packed(dir: string, name: string): string {
  const out = path.join(work, name);
  fs.mkdirSync(out, { recursive: true });
  const json = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], dir);
  const file = (JSON.parse(json) as Array<{ filename: string }>)[0].filename;
  run("tar", ["-xzf", path.join(out, path.basename(file)), "-C", out], out);
  return path.join(out, "package");
}

/** Build release `commit` from git into a package directory. */
function buildRelease(version: string, commit: string): string {
  const src = path.join(work, `src-${version}`);
  fs.mkdirSync(src, { recursive: true });
  execFileSync("bash", ["-c", `git -C "${REPO_ROOT}" archive "${commit}" | tar -x -C "${src}"`]);
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(src, "node_modules"), "dir");
  run(process.execPath, [path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], src);
  return packed(src, `pkg-${version}`);
}

/**
 * Install a package directory into a project as npm would: a real directory, dependencies beside
 * it. The checkout's own workspace packages (`@pulumi-cms/contract`) are packed and copied like
 * the package; other dependencies are links into the repository's node_modules.
 */
function install(project: PulumiProject, pkg: string, workspaces: Record<string, string>): void {
  const nm = path.join(project.dir, "node_modules");
  const place = (name: string, dir: string) => {
    fs.rmSync(path.join(nm, name), { recursive: true, force: true });
    fs.cpSync(dir, path.join(nm, name), { recursive: true });
  };
  place("pulumi-cms", pkg);
  const deps = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { dependencies?: object }).dependencies ?? {},
  );
  for (const dep of deps) {
    const link = path.join(nm, dep);
    if (workspaces[dep] !== undefined) place(dep, workspaces[dep]);
    else if (!fs.existsSync(link)) {
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.join(REPO_ROOT, "node_modules", dep), link, "dir");
    }
  }
}

describe.skipIf(lifecycleSkipped())("upgrades keep every earlier release's stacks working", () => {
  let emu: LifecycleEmulator;
  let current: string;
  let workspaces: Record<string, string>;
  const projects: PulumiProject[] = [];

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    // `npm test` has just built dist/: pack it as it is.
    current = packed(REPO_ROOT, "pkg-current");
    workspaces = { "@pulumi-cms/contract": packed(CONTRACT_PACKAGE, "pkg-contract") };
  }, STEP_TIMEOUT);
  afterAll(async () => {
    await teardown(projects, emu);
    fs.rmSync(work, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  it("CHANGELOG.md lists at least releases 0.1.0 and 0.2.0 with their commits", () => {
    expect(releases()).toContainEqual({ version: "0.1.0", commit: "55b775b" });
    expect(releases()).toContainEqual({ version: "0.2.0", commit: "33b99be" });
  });

  for (const { version, commit } of releases()) {
    it(
      `${version} (${commit}): refresh, no-change preview, update in place and destroy after upgrading; destroy with the stored provider`,
      async () => {
        const old = buildRelease(version, commit);
        const common = { config: { ...emu.stackConfig(), workers: 2 }, secretConfig: emu.secretConfig() };
        const a = await createProject({ ...common, name: `cms-upgrade-a-${version.replace(/\./g, "-")}` });
        const b = await createProject({ ...common, name: `cms-upgrade-b-${version.replace(/\./g, "-")}` });
        projects.push(a, b);
        install(a, old, workspaces);
        install(b, old, workspaces);
        await a.up();
        await b.up();
        const [resA] = await a.clusterResources();
        const [resB] = await b.clusterResources();
        // The stacks hold the package specifier, as installed stacks do (not a path).
        expect(resA.inputs.__provider).toContain(CONTRACT_ENTRY);

        install(a, current, workspaces);
        install(b, current, workspaces);
        await emu.control.resetRequestCounts();

        await a.refresh();
        await a.preview(["--expect-no-changes"]);
        await a.setConfig("workers", 3);
        await a.up();
        const [after] = await a.clusterResources();
        expect(after.id).toBe(resA.id);
        // No rename, and no new resource: the auto-name seed is for clusters that need a new name.
        expect(after.outputs.name).toBe(resA.outputs.name);
        expect((await a.exportStack()).resources.map((r) => r.type)).not.toContain(SEED_TYPE);
        expect((await emu.clusters()).find((c) => c.id === resA.id)).toMatchObject({ workers: 3, status: "running" });
        await a.destroy();

        await b.destroy();

        const counts = await emu.control.requestCounts();
        expect(counts["POST /v1/clusters"] ?? 0).toBe(0); // nothing replaced
        expect(counts["PATCH /v1/clusters/:cluster_id"]).toBe(1);
        expect(counts["DELETE /v1/clusters/:cluster_id"]).toBe(2);
        const left = (await emu.clusters()).filter((c) => c.id === resA.id || c.id === resB.id);
        expect(left).toEqual([]);
      },
      STEP_TIMEOUT,
    );
  }
});
