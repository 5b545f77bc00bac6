/**
 * The native plugin under a Go program and the real CLI: the program uses the Go SDK committed in
 * sdk/go (generated from the plugin's schema), `pulumi-resource-cms` comes from the package's
 * tarball, and `pulumi-language-go` is built from Go modules (scripts/ensure-pulumi). The program
 * is compiled once, with Go's shared build cache, and run as a binary by every command.
 */
import { execFile as execFileCb } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, REPO_ROOT, startLifecycleEmulator, teardown } from "../lifecycle/harness.mjs";
import { CLUSTER_INPUTS, clusterSteps, createNativeProject, revealedCluster, secretBreaches, shown } from "../support/native";
import { workDir } from "../support/packages";

const execFile = promisify(execFileCb);
const STEP = 600_000;

/** The sdk/v3 the committed Go SDK requires: the program takes the same. */
const SDK_VERSION = /^\s*github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)$/m.exec(
  fs.readFileSync(path.join(REPO_ROOT, "sdk", "go", "go.mod"), "utf8"),
)?.[1];
if (!SDK_VERSION) throw new Error("sdk/go/go.mod requires no github.com/pulumi/pulumi/sdk/v3");

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
\t\targs := &cms.ClusterArgs{
\t\t\tControlPlanes: pulumi.Int(controlPlanes),
\t\t\tWorkers:       pulumi.Int(workers),
\t\t\tNodeSize:      pulumi.String("small"),
\t\t}
\t\tsecretInputs := cfg.GetBool("secretInputs")
\t\tif secretInputs {
\t\t\t// Every input a secret: the name, the infrastructure and the connection from secret config.
\t\t\targs = &cms.ClusterArgs{
\t\t\t\tName:          cfg.RequireSecret("name"),
\t\t\t\tControlPlanes: pulumi.ToSecret(pulumi.Int(controlPlanes)).(pulumi.IntOutput),
\t\t\t\tWorkers:       pulumi.ToSecret(pulumi.Int(workers)).(pulumi.IntOutput),
\t\t\t\tNodeSize:      pulumi.ToSecret(pulumi.String("medium")).(pulumi.StringOutput),
\t\t\t\tPhase:         pulumi.ToSecret(pulumi.String("onpremise")).(pulumi.StringOutput),
\t\t\t\tInfraId:       cfg.RequireSecret("infraId"),
\t\t\t\tConnection:    cms.ConnectionArgs{Endpoint: cfg.RequireSecret("endpoint"), Token: cfg.RequireSecret("token")},
\t\t\t}
\t\t}
\t\tcluster, err := cms.NewCluster(ctx, "cluster", args)
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tif secretInputs {
\t\t\tctx.Export("id", cluster.ID())
\t\t\tctx.Export("status", cluster.Status)
\t\t\tctx.Export("name", cluster.Name)
\t\t\tctx.Export("controlPlanes", cluster.ControlPlanes)
\t\t\tctx.Export("workers", cluster.Workers)
\t\t\tctx.Export("nodeSize", cluster.NodeSize)
\t\t\tctx.Export("phase", cluster.Phase)
\t\t\tctx.Export("infraId", cluster.InfraId)
\t\t\tctx.Export("nodeCount", cluster.NodeCount)
\t\t\tctx.Export("kubeconfig", cluster.Kubeconfig)
\t\t\treturn nil
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

/** The program, compiled once for the file (kept apart from any project, which teardown removes); each project runs a copy. */
let compiled: Promise<string> | undefined;
const buildDir = workDir("native-go-build");
afterAll(() => fs.promises.rm(buildDir, { recursive: true, force: true }));

async function goProject(options: { config?: Record<string, string>; secretConfig?: Record<string, string> }): Promise<PulumiProject> {
  const project = await createNativeProject({
    name: "native-go",
    files: { "Pulumi.yaml": PULUMI_YAML, "go.mod": GO_MOD, "main.go": MAIN_GO },
    ...options,
  });
  const binary = path.join(project.dir, "native-go");
  compiled ??= (async () => {
    await execFile("go", ["mod", "tidy"], { cwd: project.dir, timeout: STEP });
    await execFile("go", ["build", "-o", path.join(buildDir, "native-go"), "."], { cwd: project.dir, timeout: STEP });
    // The language host reads the module too: each project gets the tidied go.mod and go.sum.
    for (const f of ["go.mod", "go.sum"]) await fs.promises.copyFile(path.join(project.dir, f), path.join(buildDir, f));
    return buildDir;
  })();
  const built = await compiled;
  for (const f of ["native-go", "go.mod", "go.sum"]) await fs.promises.copyFile(path.join(built, f), path.join(project.dir, f));
  await fs.promises.chmod(binary, 0o755);
  return project;
}

describe("a Go program on the native plugin", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await goProject({ config: emu.stackConfig(), secretConfig: emu.secretConfig() });
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
      config: { secretInputs: "true" },
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
