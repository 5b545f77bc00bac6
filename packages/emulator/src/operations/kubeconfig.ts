/** GET /v1/clusters/{id}/kubeconfig. */
import type { Principal } from "../auth";
import { renderKubeconfig } from "../kubeconfig";
import type { EmulatorState } from "../state";
import { ServiceError } from "../errors";
import { findCluster } from "./clusters";

/**
 * The cluster's kubeconfig as YAML text (available from creation until the cluster is gone).
 * With `--kubernetes`, once the cluster's API server accepts it.
 */
export async function getKubeconfig(state: EmulatorState, p: Principal, clusterId: string): Promise<string> {
  const c = findCluster(state, p, clusterId, "reading the kubeconfig");
  if (state.kubernetes) {
    try {
      await state.kubernetes.ready(c);
    } catch (e) {
      throw new ServiceError(503, "unavailable", `The Kubernetes API server of cluster ${c.id} is not available: ${(e as Error).message}`);
    }
  }
  return renderKubeconfig(c);
}
