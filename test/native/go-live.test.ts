/**
 * The native plugin under a Go program and the real CLI: the program uses the Go SDK committed in
 * sdk/go (generated from the plugin's schema), `pulumi-resource-cms` comes from the package's
 * tarball, and `pulumi-language-go` is built from Go modules (scripts/ensure-pulumi). The program
 * is compiled once, with Go's shared build cache, and run as a binary by every command.
 */
import { execFile as execFileCb } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, REPO_ROOT, startLifecycleEmulator, teardown } from "../lifecycle/harness.mjs";
import { clusterSteps, createNativeProject } from "../support/native";

const execFile = promisify(execFileCb);
const STEP = 600_000;

/** The sdk/v3 the committed Go SDK requires: the program takes the same. */
const SDK_VERSION = "v3.248.0";

const GO_MOD = `module example.com/native-go

go 1.24

require (
\tgithub.com/pulumi-cms/pulumi-cms/sdk/go v0.0.0
\tgithub.com/pulumi/pulumi/sdk/v3 ${SDK_VERSION}
)

replace github.com/pulumi-cms/pulumi-cms/sdk/go => ${path.join(REPO_ROOT, "sdk", "go")}
`;

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
\t\tcontrolPlanes := cfg.GetInt("controlPlanes")
\t\tif controlPlanes == 0 {
\t\t\tcontrolPlanes = 1
\t\t}
\t\tcluster, err := cms.NewCluster(ctx, "cluster", &cms.ClusterArgs{
\t\t\tControlPlanes: pulumi.Int(controlPlanes),
\t\t\tWorkers:       pulumi.Int(workers),
\t\t\tNodeSize:      pulumi.String("small"),
\t\t})
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tfound := cms.LookupClusterOutput(ctx, cms.LookupClusterOutputArgs{Id: cluster.ID().ToStringOutput()})
\t\tnodes := cms.GetNodesOutput(ctx, cms.GetNodesOutputArgs{ClusterId: cluster.ID().ToStringOutput()})
\t\tctx.Export("id", cluster.ID())
\t\tctx.Export("name", cluster.Name)
\t\tctx.Export("workers", cluster.Workers)
\t\tctx.Export("kubeconfig", cluster.Kubeconfig)
\t\tctx.Export("foundStatus", found.Status())
\t\tctx.Export("nodeCount", nodes.Total())
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

describe("a Go program on the native plugin", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNativeProject({
      name: "native-go",
      files: { "Pulumi.yaml": PULUMI_YAML, "go.mod": GO_MOD, "main.go": MAIN_GO },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
    await execFile("go", ["mod", "tidy"], { cwd: project.dir, timeout: STEP });
    await execFile("go", ["build", "-o", "native-go", "."], { cwd: project.dir, timeout: STEP });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "creates the cluster and reads it back through the lookups",
    async () => {
      await project.up();
      const out = await project.outputs();
      expect(out.foundStatus).toBe("running");
      expect(out.nodeCount).toBe(2);
      expect(out.name).toMatch(/^cluster-[0-9a-z]{7}$/);
      expect((await project.exportStack()).text).not.toContain(emu.token);
      expect(await project.outputs()).toHaveProperty("kubeconfig", "[secret]");
    },
    STEP,
  );

  it(
    "scales in place, then replaces on controlPlanes, then destroys",
    async () => {
      const { id } = await project.outputs();
      await project.setConfig("workers", 2);
      expect(clusterSteps(await project.up())).toEqual(["update"]);
      expect((await project.outputs()).id).toBe(id);
      expect((await emu.clusters()).find((c) => c.id === id)?.workers).toBe(2);

      await project.setConfig("controlPlanes", 3);
      expect(clusterSteps(await project.up())).toEqual(expect.arrayContaining(["create-replacement", "delete-replaced"]));
      const replaced = await project.outputs();
      expect(replaced.id).not.toBe(id);
      expect((await emu.clusters()).map((c) => c.id)).toEqual([replaced.id]);

      await project.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );
});
