/**
 * The native plugin under a Go program and the real CLI, every input given as a secret: the
 * program uses the Go SDK committed in sdk/go (generated from the plugin's schema) through
 * examples/go's go.mod and go.sum (test/support/native.ts points its `replace` at this checkout),
 * `pulumi-resource-cms` comes from the package's tarball, and `pulumi-language-go` is built from Go
 * modules (scripts/ensure-pulumi). The program is compiled once, with Go's shared build cache, and
 * run as a binary by every command. examples/go itself, compiled by the language host as a user's
 * program is, is tested by test/e2e/examples/go.test.ts.
 */
import { execFile as execFileCb } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, startLifecycleEmulator, teardown } from "../lifecycle/harness.mjs";
import {
  CLUSTER_INPUTS,
  clusterSteps,
  createNativeProject,
  nativeExampleFiles,
  nativePluginBin,
  revealedCluster,
  secretBreaches,
  shown,
} from "../../support/native";
import { workDir } from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP = 600_000;

/** Every input a secret: the name, the infrastructure and the connection from secret config. */
const MAIN_GO = `package main

import (
\t"github.com/pulumi-cms/pulumi-cms/sdk/go/cms"
\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
\tpulumi.Run(func(ctx *pulumi.Context) error {
\t\tcfg := config.New(ctx, "")
\t\tworkers := cfg.GetInt("workers")
\t\tif workers == 0 {
\t\t\tworkers = 1
\t\t}
\t\tcluster, err := cms.NewCluster(ctx, "cluster", &cms.ClusterArgs{
\t\t\tName:          cfg.RequireSecret("name"),
\t\t\tControlPlanes: pulumi.ToSecret(pulumi.Int(1)).(pulumi.IntOutput),
\t\t\tWorkers:       pulumi.ToSecret(pulumi.Int(workers)).(pulumi.IntOutput),
\t\t\tNodeSize:      pulumi.ToSecret(pulumi.String("medium")).(pulumi.StringOutput),
\t\t\tPhase:         pulumi.ToSecret(pulumi.String("onpremise")).(pulumi.StringOutput),
\t\t\tInfraId:       cfg.RequireSecret("infraId"),
\t\t\tConnection:    cms.ConnectionArgs{Endpoint: cfg.RequireSecret("endpoint"), Token: cfg.RequireSecret("token")},
\t\t})
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tctx.Export("id", cluster.ID())
\t\tctx.Export("status", cluster.Status)
\t\tctx.Export("name", cluster.Name)
\t\tctx.Export("controlPlanes", cluster.ControlPlanes)
\t\tctx.Export("workers", cluster.Workers)
\t\tctx.Export("nodeSize", cluster.NodeSize)
\t\tctx.Export("phase", cluster.Phase)
\t\tctx.Export("infraId", cluster.InfraId)
\t\tctx.Export("nodeCount", cluster.NodeCount)
\t\tctx.Export("kubeconfig", cluster.Kubeconfig)
\t\treturn nil
\t})
}
`;

const PULUMI_YAML = `name: native-go
runtime:
  name: go
  options:
    binary: ./native-go
`;

/** The program, compiled once for the file (kept apart from any project, which teardown removes); each project runs a copy. */
let compiled: Promise<string> | undefined;
const buildDir = workDir("native-go-build");
afterAll(() => fs.promises.rm(buildDir, { recursive: true, force: true }));

async function goProject(options: { config?: Record<string, string>; secretConfig?: Record<string, string> }): Promise<PulumiProject> {
  // examples/go's module: its go.mod and go.sum hold everything this program imports.
  const { "go.mod": goMod, "go.sum": goSum } = nativeExampleFiles("go", await nativePluginBin());
  const project = await createNativeProject({
    name: "native-go",
    files: { "Pulumi.yaml": PULUMI_YAML, "go.mod": goMod, "go.sum": goSum, "main.go": MAIN_GO },
    ...options,
  });
  const binary = path.join(project.dir, "native-go");
  compiled ??= execFile("go", ["build", "-o", path.join(buildDir, "native-go"), "."], { cwd: project.dir, timeout: STEP }).then(() =>
    path.join(buildDir, "native-go"),
  );
  await fs.promises.copyFile(await compiled, binary);
  await fs.promises.chmod(binary, 0o755);
  return project;
}

describe("a Go program giving every input as a secret", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  const name = `secret-name-${randomBytes(4).toString("hex")}`;
  const infraId = `secret-infra-${randomBytes(4).toString("hex")}`;
  /** The values given as secrets that a search can tell apart (numbers and sizes are checked in the state's shape). */
  let plain: string[];

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    plain = [name, infraId, emu.url, emu.token, "onpremise"];
    // No provider configuration: the cluster's own connection, given as secrets, is the only way to the service.
    project = await goProject({
      secretConfig: { name, infraId, endpoint: emu.url, token: emu.token },
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "shows none of them in a preview, an up, a scale or a refresh, stores each encrypted, and outputs each as [secret]",
    async () => {
      const runs = [await project.preview(), await project.up()];
      expect(await secretBreaches(project, plain)).toEqual([]);
      const out = await project.outputs();
      for (const k of [...CLUSTER_INPUTS, "nodeCount", "kubeconfig"]) expect(out[k], k).toBe("[secret]");
      expect(out.status).toBe("running");
      expect(await emu.clusters()).toMatchObject([
        { id: out.id, name, infra_id: infraId, phase: "onpremise", node_size: "medium", workers: 1 },
      ]);

      await project.setConfig("workers", 2);
      runs.push(await project.preview(["--diff"]));
      const scale = await project.up();
      runs.push(scale);
      expect(clusterSteps(scale)).toEqual(["update"]);
      expect((await emu.clusters()).map((c) => c.workers)).toEqual([2]);
      expect(await secretBreaches(project, plain)).toEqual([]);

      // A scale in the console, seen by a refresh through the native face.
      await emu.control.scale(out.id, 3);
      await emu.waitForCluster(out.id, (c) => c?.status === "running" && c.workers === 3);
      runs.push(await project.refresh());
      expect(await secretBreaches(project, plain)).toEqual([]);
      const state = await revealedCluster(project);
      expect([state.outputs.workers, state.inputs.workers]).toEqual([3, 3]);
      for (const run of runs) expect(shown(run.output, plain), run.command).toEqual([]);
    },
    STEP,
  );
});
