/**
 * A YAML program's `kubernetes:` provider on the exec kubeconfig of `cms:index:getKubeconfig`
 * (`credential: exec`), as a YAML or Go user deploys to a cluster: the native plugin installed
 * from the package's tarball, the real Kubernetes resource plugin and `cms-emulator --kubernetes`.
 * After a credential rotation in the console, `preview --refresh`, `up --refresh` (with a change
 * to deploy) and `destroy` work with nothing done, as `kubernetesProvider` gives TypeScript.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import { findPulumi, type LifecycleEmulator, lifecycleSkipped, startLifecycleEmulator } from "../lifecycle/harness.mjs";
import { kubectl, kubernetesPluginDir, kubernetesUnavailable } from "../../support/kubernetes";
import { createNativeProject, execKubeconfigVariable, NATIVE_CLUSTER, nativePluginBin } from "../../support/native";

const STEP = 10 * 60_000;
const skip = lifecycleSkipped() ? "CMS_SKIP_LIFECYCLE=1" : kubernetesUnavailable({ plugin: true });

/** The program: a cluster, a Kubernetes provider on its exec kubeconfig, a Namespace and a ConfigMap in it. */
const program = (greeting: string) => `name: native-yaml-kubernetes
runtime: yaml
resources:
  cluster:
    type: ${NATIVE_CLUSTER}
    properties:
      controlPlanes: 1
      workers: 1
      nodeSize: small
  kubernetes:
    type: pulumi:providers:kubernetes
    properties:
      kubeconfig: \${kc.kubeconfig}
      clusterIdentifier: \${cluster.id}
  apps:
    type: kubernetes:core/v1:Namespace
    properties:
      metadata:
        name: apps
    options:
      provider: \${kubernetes}
  settings:
    type: kubernetes:core/v1:ConfigMap
    properties:
      metadata:
        name: settings
        namespace: \${apps.metadata.name}
      data:
        greeting: ${greeting}
    options:
      provider: \${kubernetes}
${execKubeconfigVariable()}outputs:
  clusterId: \${cluster.id}
`;

/** A secret of `pulumi stack export --show-secrets`, decoded. */
const plaintext = (value: unknown) => {
  const bag = value as { plaintext?: string };
  return typeof bag?.plaintext === "string" ? JSON.parse(bag.plaintext) : value;
};

describe.skipIf(skip !== undefined)(
  `a YAML program's Kubernetes provider on getKubeconfig's exec credential${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let emu: LifecycleEmulator;
    let project: PulumiProject;

    beforeAll(async () => {
      await findPulumi();
      emu = await startLifecycleEmulator({ kubernetes: {} });
      project = await createNativeProject({
        name: "native-yaml-kubernetes",
        files: { "Pulumi.yaml": program("hello") },
        config: emu.stackConfig(),
        secretConfig: emu.secretConfig(),
      });
      // The workspace's PULUMI_HOME is empty: the CLI runs the Kubernetes plugin it finds on PATH.
      project.env.PATH = `${kubernetesPluginDir()}${path.delimiter}${project.env.PATH}`;
    }, STEP);
    afterAll(async () => {
      await project?.destroy([], { allowFailure: true });
      await project?.dispose();
      await emu?.close();
    }, STEP);

    const clusterId = async () => ((await project.outputs()) as { clusterId: string }).clusterId;
    const kubeconfigOf = async (id: string) => {
      const res = await emu.api("GET", `/v1/clusters/${id}/kubeconfig`);
      expect(res.status).toBe(200);
      return res.text;
    };
    const greeting = async (kubeconfig: string) => {
      const out = await kubectl(kubeconfig, ["-n", "apps", "get", "configmap", "settings", "-o", "jsonpath={.data.greeting}"]);
      expect(out).toMatchObject({ code: 0, stderr: "" });
      return out.stdout;
    };
    /** What a command changed, as `op type`, leaving out what stayed the same. */
    const changes = (result: { steps: Array<{ kind: string; op: string; type: string }> }) =>
      result.steps.filter((s) => s.kind === "outputs" && s.op !== "same" && s.op !== "refresh").map((s) => `${s.op} ${s.type}`);

    it(
      "up deploys through the plugin's own exec-credential command, named by absolute path; the token recorded only encrypted",
      async () => {
        await project.up();
        const id = await clusterId();
        expect(await greeting(await kubeconfigOf(id))).toBe("hello");

        const state = JSON.parse((await project.run(["stack", "export", "--show-secrets", "--stack", project.stack])).stdout);
        const provider = state.deployment.resources.find((r: { type: string }) => r.type === "pulumi:providers:kubernetes");
        const kubeconfig = plaintext(provider.inputs.kubeconfig) as string;
        expect(kubeconfig).toContain("exec:");
        expect(kubeconfig).not.toMatch(/^\s*token:/m);
        const user = (await import("yaml")).parse(kubeconfig).users[0].user;
        expect(path.isAbsolute(user.exec.command)).toBe(true);
        expect(fs.existsSync(user.exec.command)).toBe(true);
        // The npm bin of the installed package, run by this Node.js: a path in that install.
        expect(user.exec.args[0]).toBe(fs.realpathSync(path.join(await nativePluginBin(), "pulumi-resource-cms")));
        expect(user.exec.args.slice(1)).toEqual(["kubeconfig", "exec-credential", id, "--endpoint", emu.url]);
        expect(user.exec.env).toEqual([{ name: "CMS_RECORDED_TOKEN", value: emu.token }]);
        expect((await project.exportStack()).text).not.toContain(emu.token);
      },
      STEP,
    );

    it(
      "after a credential rotation in the console, preview --refresh, up --refresh with a change, and refresh work with nothing done",
      async () => {
        const id = await clusterId();
        const before = await kubeconfigOf(id);
        await emu.control.rotateKubeconfig(id);
        // The static credential the service handed out before is refused now.
        expect((await kubectl(before, ["get", "ns"])).stderr).toMatch(/Unauthorized|must be logged in/);

        await project.preview(["--refresh", "--expect-no-changes"]);
        const same = await project.up(["--refresh"]);
        expect(changes(same)).toEqual([]);

        fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), program("hello again"));
        const changed = await project.up(["--refresh"]);
        // A ConfigMap whose data changes is replaced (the Kubernetes provider's rule); nothing else changes.
        expect(changes(changed)).toContain("replace kubernetes:core/v1:ConfigMap");
        expect(changes(changed).filter((c) => !c.endsWith(" kubernetes:core/v1:ConfigMap"))).toEqual([]);
        expect(await greeting(await kubeconfigOf(id))).toBe("hello again");
        await project.refresh();
      },
      STEP,
    );

    it(
      "destroy after the rotation removes the ConfigMap and the Namespace, then the cluster",
      async () => {
        const destroyed = await project.destroy();
        const deletes = destroyed.steps.filter((s) => s.kind === "outputs" && s.op === "delete").map((s) => s.type);
        expect(deletes).toEqual(expect.arrayContaining(["kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Namespace", NATIVE_CLUSTER]));
        expect(deletes.indexOf(NATIVE_CLUSTER)).toBeGreaterThan(deletes.indexOf("kubernetes:core/v1:Namespace"));
        expect(await emu.clusters()).toEqual([]);
      },
      STEP,
    );
  },
);
