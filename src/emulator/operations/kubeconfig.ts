/** GET /v1/clusters/{id}/kubeconfig. */
import type { Principal } from "../auth";
import { renderKubeconfig } from "../kubeconfig";
import type { EmulatorState } from "../state";
import { findCluster } from "./clusters";

/** The cluster's kubeconfig as YAML text (available from creation until the cluster is gone). */
export function getKubeconfig(state: EmulatorState, p: Principal, clusterId: string): string {
  return renderKubeconfig(findCluster(state, p, clusterId, "reading the kubeconfig"));
}
