/**
 * examples/kubernetes-app as a user runs it, end to end: the real Pulumi CLI, the real Kubernetes
 * resource plugin (`scripts/ensure-pulumi-kubernetes`; `.ci/run` puts it on PATH), and
 * `cms-emulator --kubernetes`, whose clusters run workloads. Pulumi awaits the rollout as it
 * would on any cluster (no `skipAwait`), and kubectl, with the cluster's own kubeconfig, reads
 * what a user would check. Then the chain's known pains, in the order a stack lives them:
 * scaling; the upgrade of a stack whose Kubernetes provider holds the static kubeconfig (as 0.2.0
 * made it) to the exec credential plugin; a credential rotation in the console and a rotation of
 * the service token, each followed by `preview --refresh` and `up --refresh` as a pipeline runs
 * them; kubectl through `cms-kubeconfig save`; a replacement of the cluster, destroy; and, on a
 * second stack, a cluster deleted in the console.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLUSTER_TYPE,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
} from "../lifecycle/harness.mjs";
import { execFile } from "../lifecycle/harness.mjs";
import { kubectl, kubernetesPluginDir, kubernetesUnavailable } from "../../support/kubernetes";
import { exampleProject } from "./project";

const STEP = 10 * 60_000;
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable({ plugin: true });

/**
 * What every command of these stacks must not print. The CLI's note that it runs the Kubernetes plugin
 * found on PATH (where the tests put the one built from Go modules) is the one warning allowed.
 */
const NEVER = [
  /is expected to have version/,
  /unreachable cluster/i,
  /timed out waiting/i,
  /^\s*warning: (?!using pulumi-resource-kubernetes from \$PATH)/im,
];
/** The service tokens of the stack's pipeline, before and after its rotation. */
const PIPELINE_TOKENS = ["tok-kubernetes-app-1", "tok-kubernetes-app-2"];
function clean(result: { stdout: string; stderr: string }): void {
  for (const pattern of NEVER) expect(`${result.stdout}\n${result.stderr}`).not.toMatch(pattern);
}

/** An emulator whose clusters run workloads, and a stack of the example on it. */
async function appStack(stack: string): Promise<{ emu: LifecycleEmulator; project: PulumiProject }> {
  await findPulumi();
  const emu = await startLifecycleEmulator({ kubernetes: {} });
  const project = await exampleProject("kubernetes-app", emu, stack);
  // The test's PULUMI_HOME is empty: the CLI runs the plugin it finds on PATH, as it says.
  project.env.PATH = `${kubernetesPluginDir()}:${process.env.PATH}`;
  // The pipeline's own token (CMS_TOKEN), which a test rotates; the test reads with emu.token.
  await emu.control.addToken({ token: PIPELINE_TOKENS[0] as string, permissions: ["read", "write"], scope: "*", plan: "enterprise" });
  project.env.CMS_TOKEN = PIPELINE_TOKENS[0];
  return { emu, project };
}

describe.skipIf(skip !== undefined)(`examples/kubernetes-app with the real Kubernetes plugin${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  /** The example's program, and the same with the Kubernetes provider of 0.2.0 (the static kubeconfig). */
  let program: string;
  beforeAll(async () => {
    ({ emu, project } = await appStack("dev"));
    program = fs.readFileSync(path.join(project.dir, "index.ts"), "utf8");
    const asReleased = program.replace("cms.kubernetesProvider(cluster)", 'cms.kubernetesProvider(cluster, { credential: "static" })');
    expect(asReleased).not.toBe(program);
    fs.writeFileSync(path.join(project.dir, "index.ts"), asReleased);
  }, STEP);
  afterAll(async () => {
    await project?.destroy([], { allowFailure: true });
    await project?.dispose();
    await emu?.close();
  }, STEP);

  const outputs = async () => (await project.outputs()) as { clusterId: string; deploymentName: string; serviceName: string };
  const kubeconfigOf = async (id: string) => {
    const res = await emu.api("GET", `/v1/clusters/${id}/kubeconfig`);
    expect(res.status).toBe(200);
    return res.text;
  };
  const get = async (kubeconfig: string, args: string[]) => {
    const out = await kubectl(kubeconfig, ["-n", "hello", "get", ...args]);
    expect(out).toMatchObject({ code: 0, stderr: "" });
    return out.stdout;
  };
  /** The app as kubectl sees it: the Deployment's uid and the phase, node and readiness of each pod. */
  const app = async (kubeconfig: string) => {
    const { deploymentName, serviceName } = await outputs();
    const deployment = JSON.parse(await get(kubeconfig, [`deployment/${deploymentName}`, "-o", "json"]));
    const pods = JSON.parse(await get(kubeconfig, ["pods", "-l", "app=hello", "-o", "json"])).items as any[];
    const slices = JSON.parse(await get(kubeconfig, ["endpointslices", "-l", `kubernetes.io/service-name=${serviceName}`, "-o", "json"]));
    const endpoints = (slices.items as any[]).flatMap((s) => (s.endpoints ?? []).filter((e: any) => e.conditions?.ready));
    return {
      uid: deployment.metadata.uid as string,
      available: deployment.status.availableReplicas as number,
      pods: pods.map((p) => ({ phase: p.status.phase, node: p.spec.nodeName as string, ip: p.status.podIP as string })),
      endpoints: endpoints.map((e: any) => e.addresses[0]).sort(),
    };
  };

  it(
    "up rolls the app out and waits for it: pods Running on the workers, the Service's endpoints are the pods",
    async () => {
      const up = await project.up();
      clean(up);
      expect(up.stderr + up.stdout).toContain("using pulumi-resource-kubernetes from $PATH");
      const { clusterId, deploymentName } = await outputs();
      const kubeconfig = await kubeconfigOf(clusterId);
      const rollout = await kubectl(kubeconfig, ["-n", "hello", "rollout", "status", `deployment/${deploymentName}`, "--timeout=10s"]);
      expect(rollout).toMatchObject({ code: 0, stdout: expect.stringContaining("successfully rolled out") });
      const seen = await app(kubeconfig);
      expect(seen.available).toBe(2);
      expect(seen.pods).toHaveLength(2);
      for (const pod of seen.pods) {
        expect(pod.phase).toBe("Running");
        expect(pod.node).toMatch(/-worker-\d+$/);
      }
      expect(seen.endpoints).toEqual(seen.pods.map((p) => p.ip).sort());
    },
    STEP,
  );

  it(
    "scaling workers 2 → 3 updates the cluster in place: a third worker is Ready, the app and its provider are left alone",
    async () => {
      const { clusterId } = await outputs();
      const kubeconfig = await kubeconfigOf(clusterId);
      const before = await app(kubeconfig);
      await project.setConfig("workers", 3);
      const up = await project.up();
      clean(up);
      const changed = up.steps.filter((s) => s.kind === "outputs" && s.op !== "same").map((s) => `${s.op} ${s.type}`);
      expect(changed).toContain(`update ${CLUSTER_TYPE}`);
      expect(changed.filter((c) => c.includes("kubernetes"))).toEqual([]);
      const ready = await kubectl(kubeconfig, [
        "get",
        "nodes",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
      ]);
      expect(
        ready.stdout
          .trim()
          .split("\n")
          .filter((l) => /-worker-\d+=True$/.test(l)),
      ).toHaveLength(3);
      expect((await app(kubeconfig)).uid).toBe(before.uid);
    },
    STEP,
  );

  /** The URNs of the stack's resources, sorted. */
  const urns = async () => (await project.exportStack()).resources.map((r) => r.urn).sort();
  /** What a command changed, as `op type`, leaving out what stayed the same. */
  const changes = (result: { steps: Array<{ kind: string; op: string; type: string }> }) =>
    result.steps.filter((s) => s.kind === "outputs" && s.op !== "same" && s.op !== "refresh").map((s) => `${s.op} ${s.type}`);
  /** A pipeline's jobs after a rotation: the pull request's preview, the merge's up, each with --refresh. */
  const pipeline = async () => {
    const preview = await project.preview(["--refresh", "--expect-no-changes"]);
    clean(preview);
    const up = await project.up(["--refresh"]);
    clean(up);
    expect(changes(up)).toEqual([]);
    const refreshed = await project.refresh();
    clean(refreshed);
  };

  it(
    "a stack whose Kubernetes provider holds the static kubeconfig (0.2.0's) moves to the exec plugin with one up: the provider updated in place, the app untouched",
    async () => {
      const { clusterId } = await outputs();
      const before = await app(await kubeconfigOf(clusterId));
      const resources = await urns();
      fs.writeFileSync(path.join(project.dir, "index.ts"), program);
      const up = await project.up();
      clean(up);
      expect(changes(up)).toEqual(["update pulumi:providers:kubernetes"]);
      expect((await app(await kubeconfigOf(clusterId))).uid).toBe(before.uid);
      expect(await urns()).toEqual(resources);
      const exported = (await project.exportStack()).text;
      expect(exported).not.toContain(PIPELINE_TOKENS[0]);
      expect(exported).not.toContain(/token: (\S+)/.exec(await kubeconfigOf(clusterId))?.[1]);
    },
    STEP,
  );

  it(
    "after a credential rotation in the console, preview --refresh, up --refresh and refresh succeed: nothing replaced or dropped, the same app",
    async () => {
      const { clusterId } = await outputs();
      const before = await app(await kubeconfigOf(clusterId));
      const resources = await urns();
      await emu.control.rotateKubeconfig(clusterId);
      await pipeline();
      expect((await app(await kubeconfigOf(clusterId))).uid).toBe(before.uid);
      expect(await urns()).toEqual(resources);
    },
    STEP,
  );

  it(
    "after the service token is rotated (a new CMS_TOKEN, the old one revoked), the same",
    async () => {
      const { clusterId } = await outputs();
      const before = await app(await kubeconfigOf(clusterId));
      const resources = await urns();
      await emu.control.addToken({ token: PIPELINE_TOKENS[1] as string, permissions: ["read", "write"], scope: "*", plan: "enterprise" });
      await emu.control.revokeToken(PIPELINE_TOKENS[0] as string);
      project.env.CMS_TOKEN = PIPELINE_TOKENS[1];
      await pipeline();
      expect((await app(await kubeconfigOf(clusterId))).uid).toBe(before.uid);
      expect(await urns()).toEqual(resources);
    },
    STEP,
  );

  it(
    "kubectl with the kubeconfig of `cms-kubeconfig save` keeps working across a rotation; without CMS_TOKEN it says so",
    async () => {
      const { clusterId } = await outputs();
      const file = path.join(project.dir, "kubectl-config");
      const env = { ...process.env, CMS_ENDPOINT: emu.url, CMS_TOKEN: PIPELINE_TOKENS[1] };
      const cli = path.join(project.dir, "node_modules", "pulumi-cms", "dist", "kubernetes", "cli.js");
      const saved = await execFile(process.execPath, [cli, "save", clusterId, "--file", file], { env });
      expect(saved.code).toBe(0);
      const run = (args: string[], token: string | undefined) => {
        const runEnv: NodeJS.ProcessEnv = { ...process.env };
        delete runEnv.CMS_TOKEN;
        if (token) runEnv.CMS_TOKEN = token;
        return execFile("kubectl", ["--kubeconfig", file, "--request-timeout=20s", "-n", "hello", ...args], { env: runEnv });
      };
      const first = await run(["get", "deployments", "-o", "name"], PIPELINE_TOKENS[1]);
      expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining("deployment.apps/") });
      await emu.control.rotateKubeconfig(clusterId);
      const after = await run(["get", "deployments", "-o", "name"], PIPELINE_TOKENS[1]);
      expect(after).toMatchObject({ code: 0, stdout: first.stdout });
      const noToken = await run(["get", "deployments"], undefined);
      expect(noToken.code).not.toBe(0);
      expect(noToken.stderr).toContain("cms-kubeconfig: no Cluster Management Service token: set CMS_TOKEN");
      // The rotation again through the pipeline, which the saved kubeconfig's rotation above made.
      await pipeline();
    },
    STEP,
  );

  it(
    "controlPlanes 1 → 3 replaces the cluster: the app comes up on the new cluster, the old one is deleted after, nothing is left on it",
    async () => {
      const { clusterId: oldId } = await outputs();
      await project.setConfig("controlPlanes", 3);
      const up = await project.up();
      clean(up);
      const { clusterId: newId } = await outputs();
      expect(newId).not.toBe(oldId);
      expect((await emu.api("GET", `/v1/clusters/${oldId}`)).status).toBe(404);
      const seen = await app(await kubeconfigOf(newId));
      expect(seen.available).toBe(2);
      expect(seen.pods.every((p) => p.phase === "Running")).toBe(true);
      expect(await emu.clusters()).toHaveLength(1);
    },
    STEP,
  );

  it(
    "destroy removes the app, then the cluster",
    async () => {
      const destroyed = await project.destroy();
      clean(destroyed);
      const deletes = destroyed.steps.filter((s) => s.kind === "outputs" && s.op === "delete").map((s) => s.type);
      expect(deletes.indexOf(CLUSTER_TYPE)).toBeGreaterThan(deletes.indexOf("kubernetes:apps/v1:Deployment"));
      expect(deletes).toContain("kubernetes:apps/v1:Deployment");
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );
});

describe.skipIf(skip !== undefined)(
  `examples/kubernetes-app whose cluster is deleted in the console${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let emu: LifecycleEmulator;
    let project: PulumiProject;

    beforeAll(async () => {
      ({ emu, project } = await appStack("console"));
    }, STEP);
    afterAll(async () => {
      await project?.destroy([], { allowFailure: true, env: { PULUMI_K8S_DELETE_UNREACHABLE: "true" } });
      await project?.dispose();
      await emu?.close();
    }, STEP);

    const deleteInConsole = async () => {
      const { clusterId } = (await project.outputs()) as { clusterId: string };
      expect((await emu.api("DELETE", `/v1/clusters/${clusterId}`)).status).toBe(204);
      await emu.waitForCluster(clusterId, (c) => c === undefined);
      return clusterId;
    };

    it(
      "PULUMI_K8S_DELETE_UNREACHABLE=true pulumi refresh drops the cluster and its apps, keeps the provider, the seed and the old outputs; the next up deploys onto a new cluster",
      async () => {
        await project.up();
        const deleted = await deleteInConsole();
        await project.refresh([], { env: { PULUMI_K8S_DELETE_UNREACHABLE: "true" } });
        const left = (await project.exportStack()).resources.map((r) => r.type);
        expect(left).toEqual(expect.arrayContaining(["pulumi-nodejs:dynamic/cms:AutoNameSeed", "pulumi:providers:kubernetes"]));
        expect(left.filter((t) => t === CLUSTER_TYPE || t.startsWith("kubernetes:"))).toEqual([]);
        expect((await project.outputs()).clusterId).toBe(deleted);

        clean(await project.up());
        const { clusterId } = (await project.outputs()) as { clusterId: string };
        expect(clusterId).not.toBe(deleted);
        expect(await emu.clusters()).toMatchObject([{ id: clusterId, status: "running" }]);
        const types = (await project.exportStack()).resources.map((r) => r.type);
        expect(types).toEqual(expect.arrayContaining([CLUSTER_TYPE, "kubernetes:apps/v1:Deployment"]));
      },
      STEP,
    );

    it(
      "PULUMI_K8S_DELETE_UNREACHABLE=true pulumi destroy, as the README says, ends with an empty stack",
      async () => {
        await deleteInConsole();
        await project.destroy([], { env: { PULUMI_K8S_DELETE_UNREACHABLE: "true" } });
        expect((await project.exportStack()).resources).toEqual([]);
      },
      STEP,
    );
  },
);
