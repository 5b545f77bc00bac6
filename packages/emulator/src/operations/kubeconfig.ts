/** GET /v1/clusters/{id}/kubeconfig. */
import type { FastifyRequest } from "fastify";
import type { Principal } from "../http/auth";
import { renderKubeconfig } from "../model/kubeconfig";
import type { EmulatorState } from "../model/state";
import { ServiceError } from "../http/errors";
import { noKubernetesServer } from "../http/no-kubernetes";
import { findCluster } from "./clusters";

/**
 * The cluster's kubeconfig as YAML text (available from creation until the cluster is gone).
 * With `--kubernetes`, once the cluster's API server accepts it; without, pointing at the
 * emulator's own stand-in (http/no-kubernetes.ts), reached as `req` reached the emulator.
 */
export async function getKubeconfig(state: EmulatorState, p: Principal, clusterId: string, req: FastifyRequest): Promise<string> {
  const c = findCluster(state, p, clusterId, "reading the kubeconfig");
  if (!state.kubernetes) return renderKubeconfig(c, noKubernetesServer(req, c.id));
  try {
    await state.kubernetes.ready(c);
  } catch (e) {
    throw new ServiceError(503, "unavailable", `The Kubernetes API server of cluster ${c.id} is not available: ${(e as Error).message}`);
  }
  return renderKubeconfig(c);
}
