/**
 * `--kubernetes`: real Kubernetes API servers behind the emulated clusters (see backing.ts).
 * Nothing here is loaded or started without the option.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmulatorState } from "../model/state";
import type { KubernetesOptions } from "../types";
import { KubernetesBacking } from "./backing";
import { findKubernetesBinaries } from "./binaries";
import { ExistingCluster } from "./existing-cluster";
import { LocalControlPlanes } from "./local-control-planes";
import type { Placement } from "./placement";

/**
 * Starts the backing and attaches every cluster already in `state` (restored from a state file).
 *
 * @throws Error naming the option when the binaries or the kubeconfig cannot be used
 */
export async function startKubernetesBacking(
  options: KubernetesOptions,
  state: EmulatorState,
  statePath: string | undefined,
): Promise<KubernetesBacking> {
  let placement: Placement;
  let cleanup = () => {};
  if (options.kubeconfig !== undefined) {
    if (options.binDir !== undefined) throw new Error("--kubernetes-kubeconfig and --kubernetes-bin exclude each other");
    placement = await ExistingCluster.connect(options.kubeconfig);
  } else {
    const binaries = findKubernetesBinaries(options.binDir);
    let dataDir = options.dataDir ?? (statePath !== undefined ? `${statePath}.kubernetes` : undefined);
    const durable = dataDir !== undefined;
    if (dataDir === undefined) {
      const temporary = mkdtempSync(join(tmpdir(), "cms-emulator-kubernetes-"));
      dataDir = temporary;
      cleanup = () => rmSync(temporary, { recursive: true, force: true });
    }
    placement = new LocalControlPlanes(binaries, dataDir, durable);
  }
  const backing = new KubernetesBacking(placement, state, (m) => process.stderr.write(`cms-emulator: kubernetes: ${m}\n`), cleanup);
  for (const c of state.inOrder()) await backing.attach(c);
  return backing;
}
