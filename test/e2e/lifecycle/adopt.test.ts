/**
 * Adopting a cluster that exists already (made through the API, as another tool or the web
 * console would), with the real Pulumi CLI against the emulator:
 *
 * - `Cluster.get`: a read-only resource; `up` reads it (outputs, kubeconfig as a secret) and
 *   `destroy` leaves the cluster alone.
 * - the `import` option: the stack takes the cluster over without creating one (no POST); from
 *   then on it is managed (updates PATCH it, destroy deletes it). An import whose program does
 *   not describe the cluster is refused without touching anything.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  createProject,
  findPulumi,
  lifecycleSkipped,
  REPO_ROOT,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  teardown,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;
const WRITES = ["POST /v1/clusters", "PATCH /v1/clusters/:cluster_id", "DELETE /v1/clusters/:cluster_id"];

describe.skipIf(lifecycleSkipped())("lifecycle adopt: Cluster.get and the import option", () => {
  let emu: LifecycleEmulator;
  let getter: PulumiProject;
  let importer: PulumiProject;
  let id = "";

  const writes = async () => {
    const counts = await emu.control.requestCounts();
    return Object.fromEntries(WRITES.filter((k) => counts[k] !== undefined).map((k) => [k, counts[k]]));
  };

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    // The existing cluster, created outside Pulumi.
    const res = await emu.api("POST", "/v1/clusters", { name: "existing", control_planes: 1, workers: 2, node_size: "small" });
    expect(res.status).toBe(201);
    id = res.body.id;
    await emu.waitForCluster(id, (c) => c?.status === "running");
    const common = { config: emu.stackConfig(), secretConfig: emu.secretConfig() };
    getter = await createProject({ ...common, name: "cms-lc-get", config: { ...common.config, mode: "get", id } });
    importer = await createProject({
      ...common,
      name: "cms-lc-import",
      config: { ...common.config, mode: "import", id, name: "existing", controlPlanes: 1, workers: 2, nodeSize: "small" },
    });
  }, STEP_TIMEOUT);

  afterAll(() => teardown([getter, importer], emu), STEP_TIMEOUT);

  it(
    "7a. Cluster.get reads the existing cluster; destroy leaves it in place",
    async () => {
      await emu.control.resetRequestCounts();
      const up = await getter.up();
      const steps = up.steps.filter((s) => s.type === CLUSTER_TYPE);
      expect(steps.map((s) => s.op)).toContain("read");
      expect(await getter.outputs()).toMatchObject({ id, name: "existing", status: "running", workers: 2, kubeconfig: "[secret]" });
      const kubeconfig = (await emu.api("GET", `/v1/clusters/${id}/kubeconfig`)).text;
      expect((await getter.outputs({ showSecrets: true })).kubeconfig).toBe(kubeconfig);
      const [res] = await getter.clusterResources();
      expect(res).toMatchObject({ id, external: true });

      await getter.destroy();
      expect(await writes()).toEqual({});
      expect(await emu.clusters()).toMatchObject([{ id, status: "running" }]);
    },
    STEP_TIMEOUT,
  );

  it(
    "7b. an import whose program does not describe the cluster is refused, nothing is created",
    async () => {
      await importer.setConfig("workers", 5);
      await emu.control.resetRequestCounts();
      const failed = await importer.up([], { allowFailure: true });
      expect(failed.code).not.toBe(0);
      expect(failed.output).toMatch(/cannot import cluster .*workers: program 5, cluster 2/);
      expect(await writes()).toEqual({});
      expect(await importer.clusterResources()).toHaveLength(0);
      await importer.setConfig("workers", 2);
    },
    STEP_TIMEOUT,
  );

  it(
    "7b'. the `pulumi import` command fails with the message docs/troubleshooting.md quotes, and imports nothing",
    async () => {
      const readme = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
      const row = readme.split("\n").find((l) => l.startsWith("| `pulumi import pulumi-nodejs:dynamic/cms:Cluster"));
      // The messages the row quotes (they differ between versions of @pulumi/pulumi).
      const quoted = [...(row ?? "").matchAll(/`(error: preview failed: [^`]+)`/g)].map((m) => m[1]);
      expect(quoted.length, "docs/troubleshooting.md's row for `pulumi import`").toBeGreaterThan(0);
      const command = await createProject({
        name: "cms-lc-import-command",
        config: { ...emu.stackConfig(), mode: "none" },
        secretConfig: emu.secretConfig(),
      });
      try {
        await emu.control.resetRequestCounts();
        const imported = await command.run(["import", CLUSTER_TYPE, "legacy", id, "--yes", "--non-interactive"], { allowFailure: true });
        expect(imported.code, imported.output).not.toBe(0);
        expect(
          quoted.some((q) => imported.output.includes(q)),
          imported.output,
        ).toBe(true);
        expect(await command.clusterResources()).toEqual([]);
        expect(await writes()).toEqual({});
      } finally {
        await command.dispose();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "7c. the import option takes the cluster over without creating one; then it is managed",
    async () => {
      await emu.control.resetRequestCounts();
      const up = await importer.up();
      expect(up.output).toMatch(/imported: cluster cls_\w+ is running; no cluster was created/);
      expect(await writes()).toEqual({});
      const [res] = await importer.clusterResources();
      expect(res.id).toBe(id);
      expect(res.external ?? false).toBe(false);
      expect(await importer.outputs()).toMatchObject({ id, status: "running" });

      await importer.preview(["--expect-no-changes"]);

      await importer.setConfig("workers", 3);
      await importer.up();
      expect(await writes()).toEqual({ "PATCH /v1/clusters/:cluster_id": 1 });
      expect(await emu.clusters()).toMatchObject([{ id, workers: 3, status: "running" }]);

      await importer.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});
