/**
 * examples/kubernetes-app deployed for real: the emulator backs the cluster with a real
 * kube-apiserver (`--kubernetes`), the example's app goes through `cms.kubernetesProvider`, and
 * kubectl reads it back with the cluster's kubeconfig. Needs the Pulumi Kubernetes resource
 * plugin, which a user's machine downloads on first use; where it is missing (this repository's
 * CI: the Go module proxy refuses its module, so it cannot be built), the test is skipped with
 * the reason. The program itself is still checked under mocks (kubernetes-app.test.ts).
 */
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, startLifecycleEmulator, type LifecycleEmulator, type PulumiProject } from "../lifecycle/harness.mjs";
import { kubectl, kubernetesUnavailable } from "../support/kubernetes";
import { exampleProject } from "./project";

const STEP = 10 * 60_000;
const PLUGIN = "pulumi-resource-kubernetes";

/** The directory holding the Kubernetes resource plugin: PATH, or the user's Pulumi plugins. */
function kubernetesPluginDir(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, PLUGIN))) return dir;
  const plugins = join(process.env.PULUMI_HOME ?? join(homedir(), ".pulumi"), "plugins");
  const installed = existsSync(plugins)
    ? readdirSync(plugins)
        .filter((d) => /^resource-kubernetes-v/.test(d))
        .sort()
    : [];
  const newest = installed.at(-1);
  return newest && existsSync(join(plugins, newest, PLUGIN)) ? join(plugins, newest) : undefined;
}

const pluginDir = kubernetesPluginDir();
const skip = lifecycleSkipped()
  ? "CMS_SKIP_LIFECYCLE=1"
  : pluginDir === undefined
    ? `the Pulumi Kubernetes resource plugin (${PLUGIN}) is not installed (pulumi plugin install resource kubernetes)`
    : kubernetesUnavailable();

describe.skipIf(skip !== undefined)(`examples/kubernetes-app deployed to a real API server${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let emu: LifecycleEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator({ kubernetes: {} });
    project = await exampleProject("kubernetes-app", emu);
    // The test's PULUMI_HOME is empty: the plugin is found on PATH. No kubelet runs pods.
    project.env.PATH = `${pluginDir}${delimiter}${process.env.PATH}`;
    await project.setConfig("skipAwait", "true");
  }, STEP);
  afterAll(async () => {
    await project?.destroy([], { allowFailure: true });
    await project?.dispose();
    await emu?.close();
  }, STEP);

  it(
    "up deploys the namespace, deployment and service; kubectl reads them back; destroy removes them",
    async () => {
      await project.up();
      const [cluster] = await emu.clusters();
      const kubeconfig = (await emu.api("GET", `/v1/clusters/${cluster.id}/kubeconfig`)).text;
      const read = await kubectl(kubeconfig, ["get", "-n", "hello", "deployment/hello", "service/hello", "-o", "name"]);
      expect(read).toMatchObject({ code: 0, stdout: "deployment.apps/hello\nservice/hello\n" });
      await project.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP,
  );
});
