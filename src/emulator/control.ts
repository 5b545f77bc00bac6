/**
 * The control API implemented directly over the state: what `RunningEmulator.control` is,
 * and what the `/_emulator/` HTTP routes call. Out-of-band changes behave as if made in the
 * web console: they bypass tokens and rate limits but follow the same status rules.
 */
import type { ApiCluster, NodeSize } from "../shared/wire-types";
import { NODE_SIZES } from "../shared/wire-types";
import { toPrincipal } from "./auth";
import { ServiceError, clusterNotFound, conflict, validationFailed } from "./errors";
import {
  startDeletion,
  newKubeconfigCredential,
  scaleCluster,
  settle,
  toApiCluster,
  upgradeCluster,
  type ClusterRecord,
} from "./lifecycle";
import { MAX_WORKERS } from "./schemas";
import { checkTimings, type EmulatorState } from "./state";
import type { EmulatorControl, FaultSpec, TokenSpec, Timings } from "./types";

/** Builds the in-process {@link EmulatorControl} of a state. */
export function createControl(state: EmulatorState): EmulatorControl & ControlExtras {
  const running = (id: unknown, action: string): ClusterRecord => {
    if (typeof id !== "string") throw validationFailed("clusterId must be a string");
    const c = state.get(id);
    if (!c) throw clusterNotFound(id);
    if (c.status !== "running") throw conflict(`Cluster ${c.id} is ${c.status}; it can be ${action} only when running`);
    return c;
  };
  // Runs the change and resolves once it is durable, as an HTTP answer would (see persistence.ts).
  const durably = async <T>(fn: () => T): Promise<T> => {
    const out = fn();
    await state.durable();
    return out;
  };

  return {
    reset: () =>
      durably(() => {
        state.clearClusters();
        state.faults.clear();
        state.counts.clear();
        state.limiter.reset();
        state.failNext.create = 0;
        state.failNext.update = 0;
        state.onChange();
      }),
    injectFault: (f: FaultSpec) => durably(() => ({ id: state.faults.add(f).id })),
    clearFaults: () => durably(() => state.faults.clear()),
    failNext: (operation) =>
      durably(() => {
        if (operation !== "create" && operation !== "update") throw validationFailed('operation must be "create" or "update"');
        state.failNext[operation] += 1;
      }),
    scale: (clusterId, workers) =>
      durably(() => {
        if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
          throw validationFailed(`workers must be an integer between 1 and ${MAX_WORKERS}`);
        }
        const c = running(clusterId, "scaled");
        if (scaleCluster(c, { workers }, state.now(), state.durations.scale, false)) state.onChange(c.id);
      }),
    resize: (clusterId, nodeSize) =>
      durably(() => {
        if (!NODE_SIZES.includes(nodeSize as NodeSize)) throw validationFailed(`node_size must be one of ${NODE_SIZES.join(", ")}`);
        const c = running(clusterId, "resized");
        if (scaleCluster(c, { node_size: nodeSize as NodeSize }, state.now(), state.durations.scale, false)) state.onChange(c.id);
      }),
    upgrade: (clusterId, version) =>
      durably(() => {
        if (typeof version !== "string" || !/^v\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(version)) {
          throw validationFailed("kubernetes_version must look like v<major>.<minor>.<patch>, e.g. v1.31.0");
        }
        const c = running(clusterId, "upgraded");
        if (upgradeCluster(c, version, state.now(), state.durations.upgrade)) state.onChange(c.id);
      }),
    deleteCluster: (clusterId) =>
      durably(() => {
        if (typeof clusterId !== "string") throw validationFailed("clusterId must be a string");
        const c = state.get(clusterId);
        if (!c) throw clusterNotFound(clusterId);
        if (c.status === "deleting") return;
        startDeletion(c, state.now(), state.durations.delete);
        state.markDeleting(c.id);
        state.onChange(c.id);
      }),
    rotateKubeconfig: async (clusterId) => {
      const c = await durably(() => {
        if (typeof clusterId !== "string") throw validationFailed("clusterId must be a string");
        const found = state.get(clusterId);
        if (!found) throw clusterNotFound(clusterId);
        return found;
      });
      if (state.kubernetes) await state.kubernetes.rotate(c);
      else c.kubeconfig = newKubeconfigCredential();
      state.onChange(c.id);
      await state.durable();
    },
    requestCounts: () => durably(() => Object.fromEntries(state.counts)),
    resetRequestCounts: () => durably(() => state.counts.clear()),
    addToken: (t: TokenSpec) => durably(() => state.tokens.add(toPrincipal(t))),
    revokeToken: (token: string) =>
      durably(() => {
        if (!state.tokens.remove(token)) throw new ServiceError(404, "not_found", "no such token");
      }),
    setTimings: (t: Timings) =>
      durably(() => {
        try {
          checkTimings(t);
        } catch (e) {
          throw validationFailed((e as Error).message);
        }
        state.setTimings(t);
      }),
    clusters: () =>
      durably((): ApiCluster[] => {
        const now = state.now();
        state.purge(now);
        return state.order.map((c) => {
          settle(c, now);
          return toApiCluster(c);
        });
      }),
    faults: () => durably(() => state.faults.list()),
    timings: () => durably(() => state.timings()),
    stats: () =>
      durably(() => {
        const m = process.memoryUsage();
        let nodes = 0;
        for (const c of state.clusters.values()) nodes += c.nodes.length;
        return { clusters: state.clusters.size, nodes, rss_bytes: m.rss, heap_used_bytes: m.heapUsed };
      }),
  };
}

/** Control operations beyond {@link EmulatorControl}, served over HTTP too. */
export interface ControlExtras {
  faults(): Promise<unknown[]>;
  timings(): Promise<Required<Timings>>;
  stats(): Promise<{ clusters: number; nodes: number; rss_bytes: number; heap_used_bytes: number }>;
}

export { ServiceError };
