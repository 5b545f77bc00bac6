/**
 * A whole stack offline: the emulator backs its clusters with real API servers (`--kubernetes`),
 * one Pulumi stack creates a cluster and exports `kubernetesProviderArgs(cluster).kubeconfig`,
 * and a second stack takes that kubeconfig through a StackReference and applies a Deployment and
 * a Service with it (kubectl, from a dynamic resource: the Kubernetes resource plugin cannot be
 * built here). The exported kubeconfig carries no credential but the exec plugin
 * (`cms-kubeconfig exec-credential`), which the second stack's kubectl runs from its own project
 * directory. The test reads the apps back with the first stack's output; then both stacks are
 * destroyed. No kubeconfig credential appears in either stack's export.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appManifest, kubectl, kubernetesUnavailable } from "../../support/kubernetes";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable();

const CLUSTER_PROGRAM = `"use strict";
const cms = require("pulumi-cms");
const cluster = new cms.Cluster("apps", { controlPlanes: 1, workers: 2, nodeSize: "small" });
exports.clusterId = cluster.id;
exports.kubeconfig = cms.kubernetesProviderArgs(cluster).kubeconfig;
`;

const APPS_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const cluster = new pulumi.StackReference(config.require("clusterStack"));

// kubectl apply / delete of a manifest, with the kubeconfig in a file that lives for one call.
const kubectlApply = {
  async create(inputs) {
    kubectl(inputs.kubeconfig, ["apply", "-f", "-"], inputs.manifest);
    return { id: inputs.name, outs: inputs };
  },
  async delete(_id, props) {
    kubectl(props.kubeconfig, ["delete", "--ignore-not-found", "-f", "-"], props.manifest);
  },
};
function kubectl(kubeconfig, args, input) {
  const fs = require("fs"), os = require("os"), path = require("path");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubectl-"));
  fs.writeFileSync(path.join(dir, "config"), kubeconfig, { mode: 0o600 });
  try {
    require("child_process").execFileSync("kubectl", ["--kubeconfig", path.join(dir, "config"), ...args], { input, stdio: ["pipe", "ignore", "pipe"] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
class Manifest extends pulumi.dynamic.Resource {
  constructor(name, args, opts) {
    super(kubectlApply, name, args, { ...opts, additionalSecretOutputs: ["kubeconfig"] });
  }
}
new Manifest("hello", { name: "hello", kubeconfig: cluster.requireOutput("kubeconfig"), manifest: config.require("manifest") });
exports.clusterId = cluster.requireOutput("clusterId");
`;

describe.skipIf(skip !== undefined)(`a stack of a cluster and its apps, offline${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let emu: LifecycleEmulator;
  let clusterStack: PulumiProject;
  let appsStack: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator({ kubernetes: {} });
    clusterStack = await createProject({
      name: "cms-k8s-cluster",
      program: CLUSTER_PROGRAM,
      config: emu.stackConfig(),
      secretConfig: emu.secretConfig(),
    });
    appsStack = await createProject({
      name: "cms-k8s-apps",
      program: APPS_PROGRAM,
      // The same backend, so that the StackReference finds the cluster's stack.
      env: { PULUMI_BACKEND_URL: `file://${clusterStack.backend}` },
      config: { clusterStack: "organization/cms-k8s-cluster/dev", manifest: appManifest("hello") },
    });
  }, STEP_TIMEOUT);
  afterAll(async () => {
    await appsStack?.destroy([], { allowFailure: true });
    await clusterStack?.destroy([], { allowFailure: true });
    await appsStack?.dispose();
    await clusterStack?.dispose();
    await emu?.close();
  }, STEP_TIMEOUT);

  it(
    "creates the cluster, deploys through its kubeconfig from a StackReference, reads the app back, destroys both",
    async () => {
      await clusterStack.up();
      const outputs = await clusterStack.outputs({ showSecrets: true });
      const kubeconfig: string = outputs.kubeconfig;
      expect((await kubectl(kubeconfig, ["get", "ns", "-o", "name"])).stdout).toContain("namespace/default");

      await appsStack.up();
      const read = await kubectl(kubeconfig, ["get", "deployment/hello", "service/hello", "-o", "json"]);
      expect(read).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(read.stdout).items.map((i: any) => `${i.kind}/${i.metadata.name}`)).toEqual(["Deployment/hello", "Service/hello"]);

      // The credential the exec plugin fetched: the cluster's current one, from the service.
      const current = (await emu.api("GET", `/v1/clusters/${outputs.clusterId}/kubeconfig`)).text;
      expect(kubeconfig).toContain("exec-credential");
      const token = /token: (\S+)/.exec(current)?.[1] ?? "";
      const ca = /certificate-authority-data: (\S+)/.exec(current)?.[1] ?? "";
      expect(kubeconfig).not.toContain(token);
      expect(token.length).toBeGreaterThan(100); // a service account token of the real API server
      expect(Buffer.from(ca, "base64").toString()).toContain("BEGIN CERTIFICATE");
      for (const stack of [clusterStack, appsStack]) {
        const exported = await stack.exportStack();
        expect(exported.text).not.toContain(token);
        expect(exported.text).not.toContain(ca);
      }

      await appsStack.destroy();
      const gone = await kubectl(kubeconfig, ["get", "deployment/hello"]);
      expect(gone.stderr).toContain("NotFound");
      await clusterStack.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});
