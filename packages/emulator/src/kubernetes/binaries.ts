/**
 * Where the emulator finds the programs of `--kubernetes`: a control plane (etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler) and kwok, the simulated kubelet of every node.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** The release `scripts/ensure-kubernetes` builds and the emulator looks for in its cache. */
export const KUBERNETES_VERSION = "v1.37.2";

/** Paths of the programs that make up a cluster that runs workloads. */
export interface KubernetesBinaries {
  apiserver: string;
  controllerManager: string;
  scheduler: string;
  etcd: string;
  kwok: string;
}

/** File names of {@link KubernetesBinaries}, as `scripts/ensure-kubernetes` leaves them. */
const FILES: Record<keyof KubernetesBinaries, string> = {
  apiserver: "kube-apiserver",
  controllerManager: "kube-controller-manager",
  scheduler: "kube-scheduler",
  etcd: "etcd",
  kwok: "kwok",
};
const NAMES = Object.values(FILES).join(", ");

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The programs in `dir`, and those missing from it. */
function inDir(dir: string): { found: KubernetesBinaries; missing: string[] } {
  const found = Object.fromEntries(Object.entries(FILES).map(([key, file]) => [key, join(dir, file)])) as unknown as KubernetesBinaries;
  return { found, missing: Object.values(FILES).filter((file) => !executable(join(dir, file))) };
}

/**
 * The Kubernetes version `apiserver` serves (`v1.37.2`), from its `--version`.
 *
 * @throws Error when it does not run or answers something else
 */
export function servedVersion(apiserver: string): string {
  let out: string;
  try {
    out = execFileSync(apiserver, ["--version"], { encoding: "utf8", timeout: 30_000 }).trim();
  } catch (e) {
    throw new Error(`${apiserver} --version failed: ${(e as Error).message}`);
  }
  const version = out.match(/^Kubernetes (v\d+\.\d+\.\d+)$/)?.[1];
  if (!version) throw new Error(`${apiserver} --version answered ${JSON.stringify(out)}, not "Kubernetes v<major>.<minor>.<patch>"`);
  return version;
}

/**
 * The binaries in `dir` when given, else the first directory that holds all of them of:
 * `KUBEBUILDER_ASSETS`, the cache `scripts/ensure-kubernetes` fills, `PATH`.
 *
 * @throws Error naming every place looked at and how to fill one
 */
export function findKubernetesBinaries(dir?: string, env: NodeJS.ProcessEnv = process.env): KubernetesBinaries {
  if (dir !== undefined) {
    const { found, missing } = inDir(dir);
    if (missing.length > 0)
      throw new Error(`--kubernetes-bin ${dir}: expected executable files ${NAMES} in it; missing: ${missing.join(", ")}`);
    return found;
  }
  const cache = env.PULUMI_CMS_CACHE ?? join(env.HOME ?? homedir(), ".cache", "pulumi-cms");
  const candidates = [
    ...(env.KUBEBUILDER_ASSETS ? [env.KUBEBUILDER_ASSETS] : []),
    join(cache, `kubernetes-${KUBERNETES_VERSION}`, "bin"),
    ...(env.PATH ?? "").split(delimiter).filter((d) => d !== ""),
  ];
  for (const candidate of candidates) {
    const { found, missing } = inDir(candidate);
    if (missing.length === 0) return found;
  }
  throw new Error(
    `--kubernetes needs ${NAMES}, found together in none of: KUBEBUILDER_ASSETS, ` +
      `${join(cache, `kubernetes-${KUBERNETES_VERSION}`, "bin")}, PATH. Build them with \`node_modules/.bin/cms-ensure-kubernetes\` ` +
      "(packages/emulator/scripts/ensure-kubernetes in a clone; needs Go and a Go module proxy, about 20 min once), or pass a directory holding them all with --kubernetes-bin, " +
      "or use a cluster you have with --kubernetes-kubeconfig.",
  );
}
