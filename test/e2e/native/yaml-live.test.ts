/**
 * The native plugin under a YAML program and the real CLI: `pulumi-resource-cms` installed from
 * the package's tarball, `pulumi-language-yaml` built from Go modules (scripts/ensure-pulumi).
 */
import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import {
  alive,
  descendants,
  eventually,
  killTree,
  type LifecycleEmulator,
  REPO_ROOT,
  startLifecycleEmulator,
  teardown,
} from "../lifecycle/harness.mjs";
import { codeBlocks, stillAnswering } from "../../support/docs";
import {
  CLUSTER_INPUTS,
  clusterSteps,
  createNativeProject,
  NATIVE_CLUSTER,
  nativePluginBin,
  revealedCluster,
  secretBreaches,
  shown,
} from "../../support/native";
import { EMULATOR_PACKAGE, installProject, packTarball, workDir } from "../../support/packages";
import { freePort } from "../../support/net";

const STEP = 240_000;
/** The YAML program (docs/_index.md) and the commands that run it against the emulator (docs/installation-configuration.md). */
const DOCS = ["_index.md", "installation-configuration.md"].map((f) => fs.readFileSync(path.join(REPO_ROOT, "docs", f), "utf8")).join("\n");
const execFileP = promisify(execFile);

/** What every lookup but getCluster finds about the program's cluster (with `lookups`). */
const LOOKUPS = `  all:
    fn::invoke:
      function: cms:index:getClusters
      arguments:
        status: \${cluster.status}
  nodes:
    fn::invoke:
      function: cms:index:getNodes
      arguments:
        clusterId: \${cluster.id}
  node:
    fn::invoke:
      function: cms:index:getNode
      arguments:
        clusterId: \${cluster.id}
        nodeId: \${nodes.nodes[0].id}
  kube:
    fn::invoke:
      function: cms:index:getKubeconfig
      arguments:
        clusterId: \${cluster.id}
`;
const LOOKUP_OUTPUTS = `  listed: \${all.clusters}
  nodeTotal: \${nodes.total}
  firstNodeId: \${nodes.nodes[0].id}
  nodeId: \${node.id}
  nodeRole: \${node.role}
  nodeCluster: \${node.clusterId}
  foundKubeconfig: \${kube.kubeconfig}
`;

/**
 * A YAML program of one Cluster whose sizes come from the project's config, read back through
 * getCluster (and, with `lookups`, through the other four functions).
 */
function yamlProgram(
  options: { timeouts?: Partial<Record<"create" | "update" | "delete", string>>; name?: string; lookups?: boolean } = {},
): string {
  const set = Object.entries(options.timeouts ?? {});
  const timeouts = set.length ? `    options:\n      customTimeouts:\n${set.map(([op, t]) => `        ${op}: ${t}\n`).join("")}` : "";
  return `name: native-yaml
runtime: yaml
config:
  workers:
    type: integer
    default: 1
  controlPlanes:
    type: integer
    default: 1
resources:
  cluster:
    type: ${NATIVE_CLUSTER}
    properties:
${options.name ? `      name: ${options.name}\n` : ""}      controlPlanes: \${controlPlanes}
      workers: \${workers}
      nodeSize: small
${timeouts}variables:
  found:
    fn::invoke:
      function: cms:index:getCluster
      arguments:
        id: \${cluster.id}
${options.lookups ? LOOKUPS : ""}outputs:
  id: \${cluster.id}
  name: \${cluster.name}
  status: \${cluster.status}
  workers: \${cluster.workers}
  kubeconfig: \${cluster.kubeconfig}
  foundName: \${found.name}
  foundStatus: \${found.status}
${options.lookups ? LOOKUP_OUTPUTS : ""}`;
}

async function apiCalls(emu: LifecycleEmulator): Promise<number> {
  const counts = (await emu.control.requestCounts()) as Record<string, number>;
  return Object.entries(counts)
    .filter(([route]) => route.includes("/v1/"))
    .reduce((n, [, c]) => n + c, 0);
}

describe("a YAML program on the native plugin", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNativeProject({
      name: "native-yaml",
      files: { "Pulumi.yaml": yamlProgram({ lookups: true }) },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "previews a new stack without a single call to the service, the auto-name unknown: up draws the stack's seed",
    async () => {
      const before = await apiCalls(emu);
      for (const run of [await project.preview(["--diff"]), await project.preview(["--diff"])]) {
        expect(run.output).toContain("+ cms:index:Cluster: (create)");
        expect(run.output).toMatch(/^\s+name\s+: \[unknown\]$/m);
        expect(run.output).not.toMatch(/cluster-[0-9a-z]{7}/);
      }
      expect(await apiCalls(emu)).toBe(before);
    },
    STEP,
  );

  it(
    "creates the cluster, waits for running, and reads it back through getCluster",
    async () => {
      await project.up();
      const out = await project.outputs();
      expect(out.status).toBe("running");
      expect(out.foundStatus).toBe("running");
      expect(out.foundName).toBe(out.name);
      expect(out.name).toMatch(/^cluster-[0-9a-z]{7}$/);
      const [cluster] = await emu.clusters();
      expect(cluster).toMatchObject({ id: out.id, status: "running", workers: 1 });
    },
    STEP,
  );

  it(
    "finds the cluster, its nodes, one node and its kubeconfig through the other four functions",
    async () => {
      const out = await project.outputs({ showSecrets: true });
      expect((out.listed as Array<{ id: string; status: string }>).map((c) => [c.id, c.status])).toEqual([[out.id, "running"]]);
      const nodes = (await emu.api("GET", `/v1/clusters/${out.id}/nodes`)).body as {
        items: Array<{ id: string; role: string }>;
        total: number;
      };
      expect(out.nodeTotal).toBe(nodes.total);
      expect(out.nodeTotal).toBe(2);
      expect(out.firstNodeId).toBe(nodes.items[0].id);
      expect([out.nodeId, out.nodeRole, out.nodeCluster]).toEqual([nodes.items[0].id, nodes.items[0].role, out.id]);
      expect(out.foundKubeconfig).toBe((await emu.api("GET", `/v1/clusters/${out.id}/kubeconfig`)).text);
      expect((await project.outputs()).foundKubeconfig).toBe("[secret]");
    },
    STEP,
  );

  it(
    "keeps the token and the kubeconfig out of pulumi stack export, in the provider's state too",
    async () => {
      const { id } = await project.outputs();
      const kubeconfig = (await emu.api("GET", `/v1/clusters/${id}/kubeconfig`)).text;
      const exported = (await project.exportStack()).text;
      expect(exported).not.toContain(emu.token);
      for (const line of kubeconfig.split("\n").filter((l) => /data:/.test(l))) expect(exported).not.toContain(line.trim());
      const state = JSON.parse(exported);
      const resources = state.deployment.resources as Array<{
        type: string;
        inputs: Record<string, unknown>;
        outputs: Record<string, unknown>;
      }>;
      const provider = resources.find((r) => r.type === "pulumi:providers:cms");
      expect(provider?.inputs.token).toHaveProperty("ciphertext");
      const cluster = resources.find((r) => r.type === NATIVE_CLUSTER);
      expect(cluster?.outputs.kubeconfig).toHaveProperty("ciphertext");
      expect(Object.keys(cluster?.inputs ?? {}).filter((k) => ["__urn", "__timeouts", "__provider"].includes(k))).toEqual([]);
    },
    STEP,
  );

  it(
    "changes workers in place with one PATCH, the diff naming the property",
    async () => {
      const { id } = await project.outputs();
      await project.setConfig("workers", 2);
      const preview = await project.preview(["--diff"]);
      expect(preview.output).toMatch(/~ workers\s*:\s*1 => 2/);
      const before = ((await emu.control.requestCounts()) as Record<string, number>)["PATCH /v1/clusters/:cluster_id"] ?? 0;
      const up = await project.up();
      expect(clusterSteps(up)).toEqual(["update"]);
      expect((await project.outputs()).id).toBe(id);
      expect(((await emu.control.requestCounts()) as Record<string, number>)["PATCH /v1/clusters/:cluster_id"]).toBe(before + 1);
      expect((await emu.clusters()).find((c) => c.id === id)).toMatchObject({ workers: 2, status: "running" });
      await project.preview(["--expect-no-changes"]);
    },
    STEP,
  );

  it(
    "replaces the cluster when controlPlanes changes: the new one first, then the old one goes",
    async () => {
      const { id: oldId } = await project.outputs();
      await project.setConfig("controlPlanes", 3);
      const up = await project.up();
      expect(clusterSteps(up)).toEqual(expect.arrayContaining(["create-replacement", "replace", "delete-replaced"]));
      const { id: newId, status } = await project.outputs();
      expect(newId).not.toBe(oldId);
      expect(status).toBe("running");
      expect((await emu.clusters()).map((c) => c.id)).toEqual([newId]);
    },
    STEP,
  );

  it(
    "destroys the cluster",
    async () => {
      await project.destroy();
      await eventually(async () => (await emu.clusters()).length === 0, { timeoutMs: 30_000, what: "no cluster left" });
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER)).toEqual([]);
    },
    STEP,
  );
});

/** A YAML program giving every input of its Cluster as a secret, exporting every output and what getCluster finds. */
function secretsProgram(name: string, infraId: string): string {
  const outputs = [...CLUSTER_INPUTS, "nodeCount", "status", "connection", "kubeconfig"].map((k) => `  ${k}: \${cluster.${k}}\n`).join("");
  return `name: native-secrets
runtime: yaml
config:
  workers:
    type: integer
    default: 1
  endpoint:
    type: string
  token:
    type: string
resources:
  cluster:
    type: ${NATIVE_CLUSTER}
    properties:
      name:
        fn::secret: ${name}
      controlPlanes:
        fn::secret: 1
      workers:
        fn::secret: \${workers}
      nodeSize:
        fn::secret: medium
      phase:
        fn::secret: onpremise
      infraId:
        fn::secret: ${infraId}
      connection:
        endpoint:
          fn::secret: \${endpoint}
        token:
          fn::secret: \${token}
variables:
  found:
    fn::invoke:
      function: cms:index:getCluster
      arguments:
        id: \${cluster.id}
        connection:
          endpoint:
            fn::secret: \${endpoint}
          token:
            fn::secret: \${token}
outputs:
  id: \${cluster.id}
  foundName: \${found.name}
  foundInfraId: \${found.infraId}
${outputs}`;
}

describe("a YAML program whose stack holds cms:token in plain text", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    project = await createNativeProject({
      name: "native-yaml",
      files: { "Pulumi.yaml": yamlProgram() },
      config: { ...emu.stackConfig(), "cms:token": emu.token },
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "is refused with the dynamic face's message and its fix, before any call, and works once the token is a secret",
    async () => {
      const message = "cms:token is set in the stack configuration in plain text";
      for (const run of [await project.preview([], { allowFailure: true }), await project.up([], { allowFailure: true })]) {
        expect(run.code, run.output).not.toBe(0);
        expect(run.output).toContain(message);
        expect(run.output).toContain("`pulumi config set --secret cms:token <token>`");
        expect(run.output).toContain(`Pulumi.${project.stack}.yaml holds the token unencrypted`);
        expect(run.output).not.toContain(emu.token);
      }
      expect(await apiCalls(emu)).toBe(0);
      expect((await project.exportStack()).text).not.toContain(emu.token);

      await project.setConfigs({}, { "cms:token": emu.token });
      const up = await project.up();
      expect(up.output).not.toContain(message);
      expect((await project.exportStack()).text).not.toContain(emu.token);
    },
    STEP,
  );
});

describe("a YAML program giving every input as a secret", () => {
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
    project = await createNativeProject({
      name: "native-secrets",
      files: { "Pulumi.yaml": secretsProgram(name, infraId) },
      secretConfig: { endpoint: emu.url, token: emu.token },
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "shows none of them in the preview or the up, stores each encrypted, and outputs each as [secret]",
    async () => {
      const preview = await project.preview();
      expect(shown(preview.output, plain)).toEqual([]);
      const up = await project.up();
      expect(shown(up.output, plain)).toEqual([]);
      expect(await secretBreaches(project, plain)).toEqual([]);
      const out = await project.outputs();
      for (const k of [...CLUSTER_INPUTS, "nodeCount", "kubeconfig", "foundName", "foundInfraId"]) expect(out[k], k).toBe("[secret]");
      expect(out.status).toBe("running");
      // The values themselves reached the service.
      expect(await emu.clusters()).toMatchObject([
        { id: out.id, name, infra_id: infraId, phase: "onpremise", node_size: "medium", workers: 1 },
      ]);
    },
    STEP,
  );

  it(
    "keeps them secret through a scale in place, its preview's diff too",
    async () => {
      await project.setConfig("workers", 2);
      const preview = await project.preview(["--diff"]);
      expect(preview.output).toMatch(/workers/);
      expect(shown(preview.output, plain)).toEqual([]);
      const up = await project.up();
      expect(clusterSteps(up)).toEqual(["update"]);
      expect(shown(up.output, plain)).toEqual([]);
      expect((await emu.clusters()).map((c) => c.workers)).toEqual([2]);
      expect(await secretBreaches(project, plain)).toEqual([]);
    },
    STEP,
  );

  it(
    "keeps them secret through a refresh, which records a scale made in the console",
    async () => {
      const [cluster] = await emu.clusters();
      await emu.control.scale(cluster.id, 3);
      await emu.waitForCluster(cluster.id, (c) => c?.status === "running" && c.workers === 3);
      const refresh = await project.refresh();
      expect(shown(refresh.output, plain)).toEqual([]);
      expect(await secretBreaches(project, plain)).toEqual([]);
      const state = await revealedCluster(project);
      expect([state.outputs.workers, state.inputs.workers, state.outputs.nodeCount]).toEqual([3, 3, 4]);
      // The program still says 2: the next up scales back.
      const preview = await project.preview(["--diff"]);
      expect(clusterSteps(preview)).toEqual(["update"]);
      expect(shown(preview.output, plain)).toEqual([]);
    },
    STEP,
  );
});

describe("a YAML program's up interrupted with Ctrl-C", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;
  let pid: number | undefined;
  // Provisioning far longer than the cancelled up should last.
  const provisionSeconds = 30;

  beforeAll(async () => {
    emu = await startLifecycleEmulator({ provisionSeconds });
    project = await createNativeProject({
      name: "native-yaml",
      files: { "Pulumi.yaml": yamlProgram() },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(async () => {
    if (pid !== undefined) killTree(pid);
    await teardown([project], emu);
  }, STEP);

  it(
    "ends the create's wait, keeps the cluster in the stack, and the next up finishes it: no orphan, no second cluster",
    async () => {
      const run = project.spawn(["up", "--yes", "--skip-preview"], { onSpawn: (c) => (pid = c.pid) });
      let finished = false;
      void run.then(() => (finished = true));
      await eventually(async () => finished || (await emu.clusters()).length > 0, {
        timeoutMs: 120_000,
        intervalMs: 25,
        what: "the create's POST",
      });
      expect(finished, "the up ended before its cluster was created").toBe(false);
      // What Ctrl-C in a terminal sends the CLI (its plugins run in their own process groups).
      process.kill(pid as number, "SIGINT");
      const cancelled = await run;
      pid = undefined;
      expect(cancelled.code).not.toBe(0);
      expect(cancelled.output).toContain("was cancelled (Ctrl-C)");
      // Ended by the cancel, not by the end of provisioning.
      const [cluster] = await emu.clusters();
      expect(cluster.status).toBe("provisioning");
      const { state, resources } = await project.exportStack();
      expect(state.deployment.pending_operations ?? []).toEqual([]);
      const kept = resources.filter((r) => r.type === NATIVE_CLUSTER);
      expect(kept.map((r) => r.id)).toEqual([cluster.id]);
      expect(kept[0].initErrors?.join("\n")).toContain("cancelled");

      // The long provisioning was for the cancel to land in: the next up finds the cluster with a
      // few seconds of it left, not the rest.
      const left = Date.parse(cluster.created_at) + provisionSeconds * 1000 - Date.now();
      emu.skipAhead(Math.max(0, left - 3_000));
      const next = await project.up();
      expect(clusterSteps(next)).toEqual(["update"]);
      expect((await emu.clusters()).map((c) => [c.id, c.status])).toEqual([[cluster.id, "running"]]);
      expect((await project.outputs()).id).toBe(cluster.id);
    },
    STEP,
  );
});

describe("a YAML program's customTimeouts", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator({ provisionSeconds: 60 });
    project = await createNativeProject({
      name: "native-yaml",
      files: { "Pulumi.yaml": yamlProgram({ timeouts: { create: "4s" } }) },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "end a slow create at that time, name it, and keep the cluster in the stack for the next run",
    async () => {
      const up = await project.up([], { allowFailure: true });
      expect(up.code).not.toBe(0);
      expect(up.output).toContain("timed out after 4s waiting for cluster");
      // Bounded by the engine's timeout, not the emulator's minute.
      expect(up.durationMs).toBeLessThan(120_000);
      const [cluster] = await emu.clusters();
      expect(cluster.status).toBe("provisioning");
      const kept = (await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER);
      expect(kept.map((r) => r.id)).toEqual([cluster.id]);
      expect(kept[0].initErrors?.join("\n")).toContain("timed out after 4s");
    },
    STEP,
  );
});

describe("a YAML program's customTimeouts for update and delete", () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    // Scaling and deleting take 15 s here, the program allows 3 s for each.
    emu = await startLifecycleEmulator({ scaleSeconds: 15, deleteSeconds: 15 });
    project = await createNativeProject({
      name: "native-yaml",
      files: { "Pulumi.yaml": yamlProgram({ timeouts: { update: "3s", delete: "3s" } }) },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
  }, STEP);

  afterAll(() => teardown([project], emu), STEP);

  it(
    "end a slow scale and a slow delete at those times, name them, and keep the cluster in the stack until it is gone",
    async () => {
      expect((await project.up()).code).toBe(0);
      const [created] = await emu.clusters();

      await project.setConfig("workers", "2");
      const scale = await project.up([], { allowFailure: true });
      expect(scale.code).not.toBe(0);
      expect(scale.output).toContain(`timed out after 3s waiting for cluster ${created.id} to become running`);
      expect(scale.durationMs).toBeLessThan(15_000 + 60_000);
      expect((await emu.clusters()).map((c) => [c.id, c.workers])).toEqual([[created.id, 2]]);
      const afterScale = (await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER);
      expect(afterScale.map((r) => r.id)).toEqual([created.id]);

      // The rest of the scale is no part of the check: skipped, not waited out.
      emu.skipAhead(15_000);
      await emu.waitForCluster(created.id, (c) => c?.status === "running", 60_000);
      const destroy = await project.destroy([], { allowFailure: true });
      expect(destroy.code).not.toBe(0);
      expect(destroy.output).toContain(`timed out after 3s waiting for cluster ${created.id} to be deleted`);
      // Not gone yet, so still this stack's to finish deleting.
      const afterDelete = (await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER);
      expect(afterDelete.map((r) => r.id)).toEqual([created.id]);

      emu.skipAhead(15_000);
      await emu.waitForCluster(created.id, (c) => c === undefined, 60_000);
      expect((await project.destroy()).code).toBe(0);
      expect((await project.exportStack()).resources.filter((r) => r.type === NATIVE_CLUSTER)).toEqual([]);
    },
    STEP,
  );
});

describe("two stacks of one YAML project on one token", () => {
  let emu: LifecycleEmulator;
  let first: PulumiProject;
  let second: PulumiProject;

  beforeAll(async () => {
    emu = await startLifecycleEmulator();
    const files = { "Pulumi.yaml": yamlProgram() };
    first = await createNativeProject({ name: "native-yaml", files, config: emu.stackConfig(), secretConfig: emu.secretConfig() });
    second = await createNativeProject({ name: "native-yaml", files, config: emu.stackConfig(), secretConfig: emu.secretConfig() });
  }, STEP);

  afterAll(() => teardown([first, second], emu), STEP);

  it(
    "each create its own auto-named cluster, and destroying one leaves the other",
    async () => {
      await first.up();
      await second.up();
      const [a, b] = [await first.outputs(), await second.outputs()];
      expect(a.name).not.toBe(b.name);
      expect(a.id).not.toBe(b.id);
      await first.destroy();
      await eventually(async () => (await emu.clusters()).map((c) => c.id).join() === b.id, {
        timeoutMs: 30_000,
        what: "only the second stack's cluster left",
      });
      await second.preview(["--expect-no-changes"]);
    },
    STEP,
  );
});

describe("a YAML program's create killed with the CLI", () => {
  let emu: LifecycleEmulator;
  const projects: PulumiProject[] = [];

  beforeAll(async () => {
    emu = await startLifecycleEmulator({ provisionSeconds: 5 });
  }, STEP);

  afterAll(() => teardown(projects, emu), STEP);

  /** A stack of its own; the service holds none of its clusters yet. */
  async function freshProject(stack: string) {
    const project = await createNativeProject({
      name: "native-yaml",
      stack,
      files: { "Pulumi.yaml": yamlProgram() },
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
    projects.push(project);
    return project;
  }

  /**
   * Run `pulumi up` and SIGKILL the CLI with every process under it once the service holds a new
   * cluster (the create's POST went out). Returns that cluster.
   */
  async function killUpOnceCreated(project: PulumiProject, { groupOnly = false } = {}) {
    const known = new Set((await emu.clusters()).map((c) => c.id));
    const created = async () => (await emu.clusters()).filter((c) => !known.has(c.id));
    let pid: number | undefined;
    const run = project.spawn(["up", "--yes", "--skip-preview"], { onSpawn: (c) => (pid = c.pid) });
    let finished = false;
    void run.then(() => (finished = true));
    await eventually(async () => finished || (await created()).length > 0, {
      timeoutMs: 120_000,
      intervalMs: 25,
      what: "the create's POST",
    });
    expect(finished, "the up ended before its cluster was created").toBe(false);
    const plugins = descendants(pid as number).filter((q) => {
      try {
        return fs.readFileSync(`/proc/${q}/cmdline`, "utf8").includes("pulumi-resource-cms");
      } catch {
        return false;
      }
    });
    expect(plugins.length).toBeGreaterThan(0);
    // What a runner that kills the job's process group does: the plugin, in a group of its own, is left.
    if (groupOnly) process.kill(-(pid as number), "SIGKILL");
    else killTree(pid as number);
    await run;
    const [orphan] = await created();
    expect(orphan.status).toBe("provisioning");
    await project.cancel();
    return { orphan, others: known, plugins };
  }

  /** The stack's clusters on the service: exactly `id`, beside the ones it held before. */
  async function onlyClusterOfStack(others: Set<string>, id: string) {
    expect((await emu.clusters()).map((c) => c.id).filter((c) => !others.has(c))).toEqual([id]);
  }

  it(
    "leaves no orphan: the next run takes over the cluster the killed one created",
    async () => {
      const project = await freshProject("takeover");
      const { orphan, others } = await killUpOnceCreated(project);
      const next = await project.up([], { allowFailure: true });
      expect(next.code, next.output.split("\n").slice(-30).join("\n")).toBe(0);
      expect(next.output).toContain(`cluster ${orphan.id}`);
      await onlyClusterOfStack(others, orphan.id);
      expect((await project.outputs()).id).toBe(orphan.id);
    },
    STEP,
  );

  it(
    "with only the CLI's process group killed, the plugin it left behind exits within the 30 s docs/killed-jobs.md states",
    async () => {
      const project = await freshProject("group-killed");
      const { plugins } = await killUpOnceCreated(project, { groupOnly: true });
      await eventually(() => plugins.every((q) => !alive(q)), { timeoutMs: 30_000, intervalMs: 500, what: "the plugin to exit" });
      expect((await project.up([], { allowFailure: true })).code).toBe(0);
    },
    STEP,
  );

  it(
    "as the GitOps merge job recovers it: cms-recover records the cluster, no pending operation is left, and the next up creates nothing",
    async () => {
      const project = await freshProject("recovered");
      const { orphan, others } = await killUpOnceCreated(project);
      const pendingCreates = async () => (await project.exportStack()).state.deployment.pending_operations ?? [];
      expect((await pendingCreates()).map((op: { resource: { type: string } }) => op.resource.type)).toEqual([NATIVE_CLUSTER]);

      // The merge job's recovery step: the package's cms-recover, from the tarball's install.
      const recover = await execFileP(path.join(await nativePluginBin(), "cms-recover"), [], {
        cwd: project.dir,
        env: { ...process.env, ...project.cliEnv() },
      });
      expect(recover.stdout).toContain(`cluster ${orphan.id} ("${orphan.name}") was created by the interrupted run`);
      expect(recover.stdout).toContain("recording it");
      expect(await pendingCreates()).toEqual([]);

      const next = await project.up([], { allowFailure: true });
      expect(next.code, next.output.split("\n").slice(-30).join("\n")).toBe(0);
      await onlyClusterOfStack(others, orphan.id);
      const outputs = await project.outputs();
      expect(outputs.id).toBe(orphan.id);
      expect(outputs.status).toBe("running");
      expect((await project.preview(["--expect-no-changes"], { allowFailure: true })).code).toBe(0);
    },
    STEP,
  );
});

describe("the YAML program of docs/_index.md, against the emulator docs/installation-configuration.md starts", () => {
  let project: PulumiProject;
  let work: string;
  let emulatorBin: string;

  beforeAll(async () => {
    const program = codeBlocks(DOCS, ["yaml"]).find((b) => b.includes("runtime: yaml"));
    if (!program) throw new Error("docs/_index.md has no YAML program (a yaml block with `runtime: yaml`)");
    // Where npm put the plugin here, in place of the page's placeholder.
    const here = program.replace(/path: PULUMI_RESOURCE_CMS_DIR\b/, `path: ${await nativePluginBin()}`);
    expect(here).not.toBe(program);
    // The page's block makes the stack: the driver's own is another.
    project = await createNativeProject({
      name: "clusters",
      stack: "driver",
      files: { "Pulumi.yaml": here },
      // As on a user's machine: nothing stops the CLI from looking for plugins online but the program.
      env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "" },
    });
    // `npm install -g @pulumi-cms/emulator`, from its tarball, into a prefix of its own.
    work = workDir("yaml-emulator");
    await installProject(work, { dependencies: { "@pulumi-cms/emulator": `file:${packTarball(work, EMULATOR_PACKAGE)}` } }, process.env, [
      "--ignore-scripts",
    ]);
    emulatorBin = path.join(work, "node_modules", ".bin");
  }, STEP);

  afterAll(async () => {
    const pidFile = path.join(project?.dir ?? "", "emulator.pid");
    if (project && fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGTERM");
      } catch {
        // gone
      }
    }
    await project?.dispose();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, STEP);

  it(
    "runs as written, the emulator from PATH and the plugin where the program says; the clean-up deletes the cluster, removes the stack and stops the emulator",
    async () => {
      const [block] = codeBlocks(DOCS, ["bash"]).filter((b) => b.includes("npm install -g @pulumi-cms/emulator"));
      const cleanUp = /`(pulumi destroy --yes)`, `(pulumi stack rm dev --yes)` and `(kill "\$\(cat emulator\.pid\)")` clean up/.exec(DOCS);
      expect(cleanUp).not.toBeNull();
      // The changes to the text: the emulator is installed already (above), on a free port in place of 8787.
      const port = await freePort();
      const script = [
        // Not the page's: the emulator, which shares the shell's stderr, stops whatever happens.
        `trap 'if [ -f emulator.pid ]; then kill "$(cat emulator.pid)" 2>/dev/null || true; fi' EXIT`,
        block
          .replace("npm install -g @pulumi-cms/emulator\n", "")
          .replace("--token offline-token", `--port ${port} --token offline-token`)
          .replace("http://127.0.0.1:8787", `http://127.0.0.1:${port}`),
        "echo __outputs__; pulumi stack output --json; echo __end__",
        cleanUp![1],
        cleanUp![2],
        cleanUp![3],
        "echo __stacks__; pulumi stack ls --json",
      ].join("\n");
      const { stdout, stderr } = await execFileP("bash", ["-eu", "-c", script], {
        cwd: project.dir,
        env: project.cliEnv({ PATH: [emulatorBin, project.env.PATH].join(path.delimiter) }),
        maxBuffer: 64 * 1024 * 1024,
      });
      const output = stdout + stderr;
      expect(output).not.toMatch(/from \$PATH|downloading/);
      expect(output).toMatch(/\+\s+cms:index:Cluster\s+cluster\s+created/);
      const outputs = JSON.parse(stdout.slice(stdout.indexOf("__outputs__") + 11, stdout.indexOf("__end__")));
      expect(outputs).toMatchObject({ status: "running", name: expect.stringMatching(/^cluster-[0-9a-z]{7}$/), kubeconfig: "[secret]" });
      expect(output).toMatch(/-\s+cms:index:Cluster\s+cluster\s+deleted/);
      // The stack is gone from the backend too, as after the quick start's clean-up.
      const stacks = JSON.parse(stdout.slice(stdout.indexOf("__stacks__") + 10)) as Array<{ name: string }>;
      expect(stacks.map((st) => st.name)).not.toContain("dev");
      expect(await stillAnswering(`http://127.0.0.1:${port}/v1/clusters`)).toBe(false);
    },
    STEP,
  );
});
