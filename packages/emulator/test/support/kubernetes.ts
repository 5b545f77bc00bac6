/**
 * What the tests of `--kubernetes` share: the binaries, and kubectl run on a kubeconfig text.
 *
 * The tests need the control plane, etcd and kwok (`packages/emulator/scripts/ensure-kubernetes`
 * builds them; `.ci/run` does). Outside CI, a machine without them skips those tests and says why;
 * in CI they fail.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { findKubernetesBinaries } from "../../src/kubernetes/binaries";

/** Why the Kubernetes tests cannot run here, or undefined when they can (always in CI). */
export function kubernetesUnavailable(): string | undefined {
  if (process.env.CI) return undefined;
  try {
    findKubernetesBinaries();
  } catch {
    return "no Kubernetes control plane and kwok: run packages/emulator/scripts/ensure-kubernetes to build them (about 20 min once)";
  }
  return undefined;
}

/** The outcome of one kubectl command. */
export interface Kubectl {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl with `kubeconfig` (YAML text); `stdin` is piped to it. Never throws on exit codes.
 * With `env`, kubectl (found on this process's PATH) runs with that environment only: e.g. a PATH
 * without Node.js, to show that what the kubeconfig's `exec` runs needs none. Its HOME is then the
 * kubeconfig's temporary directory (unless `env` names one), so that its cache (`~/.kube/cache`)
 * goes there rather than into the working directory.
 */
export function kubectl(kubeconfig: string, args: string[], stdin?: string, env?: NodeJS.ProcessEnv): Promise<Kubectl> {
  const command = env ? onPath("kubectl") : "kubectl";
  const dir = mkdtempSync(join(tmpdir(), "cms-kubectl-"));
  const file = join(dir, "kubeconfig");
  writeFileSync(file, kubeconfig, { mode: 0o600 });
  return new Promise((resolve) => {
    const child = execFile(
      command,
      ["--kubeconfig", file, "--request-timeout=20s", ...args],
      { timeout: 60_000, env: env && { HOME: dir, ...env } },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? "");
  });
}

/** The absolute path of `name` on this process's PATH (as a shell's `command -v`); the name itself when it is on none. */
function onPath(name: string): string {
  const found = (process.env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file));
  return found ?? name;
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
