/**
 * The native plugin's state contract from the npm package to the release's executable: a YAML
 * stack made by today's plugin as `npm install -g pulumi-cms` gives it (the package's bin on PATH,
 * run by Node.js) goes on with the release's linux-amd64 executable installed into the stack's
 * PULUMI_HOME (`pulumi plugin install resource cms VERSION --file ARCHIVE`) and no Node.js on
 * PATH: refresh and preview find no change, a `workers` change updates the same cluster in place
 * (one PATCH), and destroy leaves none. A user moving from the npm install to the release (or to
 * the engine's automatic install) meets exactly this. The dynamic face's stacks do not run the
 * plugin at all; their upgrades across releases are upgrade.test.ts's.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveName } from "../../../scripts/release.mjs";
import {
  findPulumi,
  type LifecycleEmulator,
  lifecycleSkipped,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import type { PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import { clusterSteps, createNativeProject } from "../../support/native";
import { releaseArchives } from "../../support/packages";

const STEP = 5 * 60_000;
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
/** What the CLI says when it runs a plugin found on PATH rather than one installed in PULUMI_HOME. */
const PATH_WARNING = /using pulumi-resource-cms from \$PATH/;

const PROGRAM = `name: native-upgrade
runtime: yaml
config:
  workers:
    type: integer
    default: 1
resources:
  cluster:
    type: cms:index:Cluster
    properties:
      controlPlanes: 1
      workers: \${workers}
      nodeSize: small
outputs:
  id: \${cluster.id}
`;

describe.skipIf(lifecycleSkipped())("a native stack made by the npm package's plugin, upgraded to the release's executable", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  let archive: string;
  /** A PATH of the Pulumi CLI and its language hosts only: no node, no pulumi-resource-cms. */
  let cliOnly: string;

  beforeAll(async () => {
    const [dir, { binDir }] = await Promise.all([releaseArchives(["linux-amd64"]), findPulumi()]);
    archive = path.join(dir, archiveName(VERSION, "linux-amd64"));
    cliOnly = binDir;
    expect(fs.readdirSync(binDir).filter((f) => f === "node" || f.startsWith("pulumi-resource-cms"))).toEqual([]);
    emu = await startLifecycleEmulator({ provisionSeconds: 1 });
    // The package's bin on PATH, with the Node.js that runs it (createNativeProject keeps this process's PATH after it).
    project = await createNativeProject({
      name: "native-upgrade",
      files: { "Pulumi.yaml": PROGRAM },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "refreshes with no change, updates in place and destroys with the released binary, no node on PATH",
    async () => {
      const made = await project.up();
      // Made by the npm bin: found on PATH, as after `npm install -g pulumi-cms`; nothing installed in PULUMI_HOME.
      expect(made.output).toMatch(PATH_WARNING);
      expect(fs.existsSync(path.join(project.home, "plugins"))).toBe(false);
      const { id } = await project.outputs();

      await project.run(["plugin", "install", "resource", "cms", VERSION, "--file", archive]);
      expect(fs.statSync(path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms")).isFile()).toBe(true);
      project.env = { ...project.env, PATH: cliOnly };
      await emu.control.resetRequestCounts();

      const runs = [await project.refresh(["--expect-no-changes"]), await project.preview(["--expect-no-changes"])];
      await project.setConfig("workers", 2);
      const update = await project.up();
      runs.push(update);
      expect(clusterSteps(update)).toEqual(["update"]);
      expect((await project.outputs()).id).toBe(id);
      expect((await emu.clusters()).find((c) => c.id === id)).toMatchObject({ workers: 2, status: "running" });
      expect((await project.exportStack()).text).not.toContain(emu.token);
      runs.push(await project.destroy());
      expect(await emu.clusters()).toEqual([]);

      // The installed executable ran every command: nothing came from PATH (where neither the bin nor node is now).
      for (const run of runs) expect(run.output).not.toMatch(PATH_WARNING);
      const counts = await emu.control.requestCounts();
      expect(counts["POST /v1/clusters"] ?? 0).toBe(0);
      expect(counts["PATCH /v1/clusters/:cluster_id"]).toBe(1);
      expect(counts["DELETE /v1/clusters/:cluster_id"]).toBe(1);
    },
    STEP,
  );
});
