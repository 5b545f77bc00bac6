/**
 * Where the emulator finds `kube-apiserver` and `etcd` for `--kubernetes`.
 */
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** The release `scripts/ensure-kubernetes` builds and the emulator looks for in its cache. */
export const KUBERNETES_VERSION = "v1.37.2";

/** Paths of the two programs that make up a control plane. */
export interface KubernetesBinaries {
  apiserver: string;
  etcd: string;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function inDir(dir: string): KubernetesBinaries | undefined {
  const found = { apiserver: join(dir, "kube-apiserver"), etcd: join(dir, "etcd") };
  return executable(found.apiserver) && executable(found.etcd) ? found : undefined;
}

/**
 * The binaries in `dir` when given, else the first directory that holds both of: envtest's
 * `KUBEBUILDER_ASSETS`, the cache `scripts/ensure-kubernetes` fills, `PATH`.
 *
 * @throws Error naming every place looked at and how to fill one
 */
export function findKubernetesBinaries(dir?: string, env: NodeJS.ProcessEnv = process.env): KubernetesBinaries {
  if (dir !== undefined) {
    const found = inDir(dir);
    if (!found) throw new Error(`--kubernetes-bin ${dir}: expected executable files kube-apiserver and etcd in it`);
    return found;
  }
  const cache = env.PULUMI_CMS_CACHE ?? join(env.HOME ?? homedir(), ".cache", "pulumi-cms");
  const candidates = [
    ...(env.KUBEBUILDER_ASSETS ? [env.KUBEBUILDER_ASSETS] : []),
    join(cache, `kubernetes-${KUBERNETES_VERSION}`, "bin"),
    ...(env.PATH ?? "").split(delimiter).filter((d) => d !== ""),
  ];
  for (const candidate of candidates) {
    const found = inDir(candidate);
    if (found) return found;
  }
  throw new Error(
    "--kubernetes needs kube-apiserver and etcd, found in none of: KUBEBUILDER_ASSETS, " +
      `${join(cache, `kubernetes-${KUBERNETES_VERSION}`, "bin")}, PATH. Build them with \`node_modules/.bin/cms-ensure-kubernetes\` ` +
      "(packages/emulator/scripts/ensure-kubernetes in a clone; needs Go and a Go module proxy, about 10 min once), or pass a directory holding both with --kubernetes-bin " +
      "(e.g. from `setup-envtest use -p path`), or use a cluster you have with --kubernetes-kubeconfig.",
  );
}
