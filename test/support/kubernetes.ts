/**
 * What the tests of `--kubernetes` share: the binaries, the Kubernetes resource plugin, and
 * kubectl run on a kubeconfig text (the emulator's tests own kubectl and the binaries' check).
 *
 * The tests need the control plane, etcd and kwok (`packages/emulator/scripts/ensure-kubernetes`
 * builds them), and those that deploy through Pulumi the plugin (`scripts/ensure-pulumi-kubernetes`);
 * `.ci/run` builds both. Outside CI, a machine without them skips those tests and says why; in CI
 * they fail.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { kubernetesUnavailable as emulatorUnavailable } from "../../packages/emulator/test/support/kubernetes";

export { appManifest, kubectl } from "../../packages/emulator/test/support/kubernetes";

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
    const why = emulatorUnavailable();
    if (why !== undefined) return why;
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
