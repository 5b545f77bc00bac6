/**
 * What the tests of `--kubernetes` share: the binaries, the Kubernetes resource plugin, and
 * kubectl run on a kubeconfig text.
 *
 * The tests need the control plane, etcd and kwok (`packages/emulator/scripts/ensure-kubernetes`
 * builds them), and those that deploy through Pulumi the plugin (`scripts/ensure-pulumi-kubernetes`);
 * `.ci/run` builds both. Outside CI, a machine without them skips those tests and says why; in CI
 * they fail.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { findKubernetesBinaries } from "../../packages/emulator/src/kubernetes/binaries";

const PLUGIN = "pulumi-resource-kubernetes";

/** Where `scripts/ensure-pulumi-kubernetes` leaves the plugin: PATH first, then its cache. */
function pluginCandidates(): string[] {
  const sdk = JSON.parse(readFileSync(join(__dirname, "../../node_modules/@pulumi/kubernetes/package.json"), "utf8"));
  const cache = process.env.PULUMI_CMS_CACHE ?? join(homedir(), ".cache", "pulumi-cms");
  return [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), join(cache, `pulumi-kubernetes-v${sdk.pulumi.version}`, "bin")];
}

/**
 * The directory holding the Kubernetes resource plugin, to put first on a project's PATH.
 *
 * @throws Error saying how to build it, when it is nowhere
 */
export function kubernetesPluginDir(): string {
  const candidates = pluginCandidates();
  const found = candidates.find((dir) => existsSync(join(dir, PLUGIN)));
  if (found) return found;
  throw new Error(`${PLUGIN} is in none of ${candidates.at(-1)} and PATH: run scripts/ensure-pulumi-kubernetes (about 10 min once)`);
}

/**
 * Why the Kubernetes tests cannot run here, or undefined when they can (always in CI).
 *
 * @param needs.plugin the test deploys through the Kubernetes resource plugin too
 * @param needs.controlPlane the test runs `--kubernetes` (default true)
 */
export function kubernetesUnavailable(needs: { plugin?: boolean; controlPlane?: boolean } = {}): string | undefined {
  if (process.env.CI) return undefined;
  if (needs.controlPlane !== false) {
    try {
      findKubernetesBinaries();
    } catch {
      return "no Kubernetes control plane and kwok: run packages/emulator/scripts/ensure-kubernetes to build them (about 20 min once)";
    }
  }
  if (needs.plugin) {
    try {
      kubernetesPluginDir();
    } catch (e) {
      return (e as Error).message;
    }
  }
  return undefined;
}

/** The outcome of one kubectl command. */
export interface Kubectl {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with `kubeconfig` (YAML text); `stdin` is piped to it. Never throws on exit codes. */
export function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<Kubectl> {
  const dir = mkdtempSync(join(tmpdir(), "cms-kubectl-"));
  const file = join(dir, "kubeconfig");
  writeFileSync(file, kubeconfig, { mode: 0o600 });
  return new Promise((resolve) => {
    const child = execFile(
      "kubectl",
      ["--kubeconfig", file, "--request-timeout=20s", ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? "");
  });
}

/** A Deployment and a Service named `name`, as `kubectl apply -f -` takes them. */
export function appManifest(name: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items: [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name, labels: { app: name } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: "nginx:1.27-alpine" }] } },
        },
      },
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, labels: { app: name } },
        spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 80 }] },
      },
    ],
  });
}
