/**
 * The control API implemented directly over the state: what `RunningEmulator.control` is,
 * and what the `/_emulator/` HTTP routes call. Out-of-band changes behave as if made in the
 * web console: they bypass tokens and rate limits but follow the same status rules.
 */
import { type ApiCluster, MAX_WORKERS, NODE_SIZES, type NodeSize } from "@pulumi-cms/contract";
import { toPrincipal } from "../http/auth";
import { newSecret } from "../model/ids";
import { ServiceError, clusterNotFound, conflict, validationFailed } from "../http/errors";
import { startDeletion, newKubeconfigCredential, scaleCluster, settle, upgradeCluster } from "../model/lifecycle";
import type { ClusterRecord, KubeconfigCredential } from "../model/records";
import { toApiCluster } from "../http/wire-view";
import { EVERY_CLUSTER, checkTimings, type EmulatorState } from "../model/state";
import type { AddedToken, EmulatorControl, FaultSpec, NewTokenSpec, Timings } from "../types";

/** Builds the in-process {@link EmulatorControl} of a state. */
export function createControl(state: EmulatorState): EmulatorControl & ControlExtras {
  const running = (id: string, action: string): ClusterRecord => {
    const c = state.get(id);
    if (!c) throw clusterNotFound(id);
    if (c.status !== "running") throw conflict(`Cluster ${c.id} is ${c.status}; it can be ${action} only when running`);
    return c;
  };
  const clusterIdOf = (id: unknown): string => {
    if (typeof id !== "string") throw validationFailed("clusterId must be a string");
    return id;
  };
  /** A console change of one cluster: after that cluster's other changes, applied once durable (see `../store/database.ts`). */
  const change = async (clusterId: unknown, fn: (id: string) => Promise<unknown>): Promise<void> => {
    const id = clusterIdOf(clusterId);
    await state.exclusive(id, async () => {
      await fn(id);
    });
  };
  const scale = (c: ClusterRecord, target: { workers?: number; node_size?: NodeSize }) =>
    state.update(c, (draft) => scaleCluster(draft, target, state.now(), state.durations.scale, false));

  return {
    reset: () => state.exclusive(EVERY_CLUSTER, () => state.reset()),
    injectFault: async (f: FaultSpec) => ({ id: state.faults.add(f).id }),
    clearFaults: async () => state.faults.clear(),
    failNext: async (operation) => {
      if (operation !== "create" && operation !== "update") throw validationFailed('operation must be "create" or "update"');
      state.failNext(operation);
    },
    scale: async (clusterId, workers) => {
      if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
        throw validationFailed(`workers must be an integer between 1 and ${MAX_WORKERS}`);
      }
      await change(clusterId, (id) => scale(running(id, "scaled"), { workers }));
    },
    resize: async (clusterId, nodeSize) => {
      if (!NODE_SIZES.includes(nodeSize as NodeSize)) throw validationFailed(`node_size must be one of ${NODE_SIZES.join(", ")}`);
      await change(clusterId, (id) => scale(running(id, "resized"), { node_size: nodeSize as NodeSize }));
    },
    upgrade: async (clusterId, version) => {
      if (typeof version !== "string" || !/^v\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(version)) {
        throw validationFailed("kubernetes_version must look like v<major>.<minor>.<patch>, e.g. v1.31.0");
      }
      // A cluster's version is what its API server serves: an upgrade it cannot run is refused,
      // not recorded as done while `kubectl version` says otherwise.
      const served = state.kubernetes?.version;
      if (served !== undefined && version !== served) {
        throw validationFailed(
          `kubernetes_version: --kubernetes serves ${served} only (the version of its kube-apiserver); ${version} cannot be run here`,
        );
      }
      await change(clusterId, (id) =>
        state.update(running(id, "upgraded"), (draft) => upgradeCluster(draft, version, state.now(), state.durations.upgrade)),
      );
    },
    deleteCluster: (clusterId) =>
      change(clusterId, async (id) => {
        const c = state.get(id);
        if (!c) throw clusterNotFound(id);
        if (c.status === "deleting") return;
        await state.update(c, (draft) => {
          startDeletion(draft, state.now(), state.durations.delete);
          return true;
        });
        state.markDeleting(c.id);
      }),
    rotateKubeconfig: async (clusterId) => {
      const id = clusterIdOf(clusterId);
      // Its first credential is issued in the background, under the same exclusion: wait for it outside.
      const found = state.get(id);
      if (found && state.kubernetes) await state.kubernetes.ready(found).catch(() => undefined);
      await change(id, async () => {
        const c = state.get(id);
        if (!c) throw clusterNotFound(id);
        const record = (credential: KubeconfigCredential) =>
          state.update(c, (draft) => {
            draft.kubeconfig = credential;
            return true;
          });
        if (state.kubernetes) await state.kubernetes.rotate(c, record);
        else await record(newKubeconfigCredential());
      });
    },
    requestCounts: async () => state.requestCounts(),
    resetRequestCounts: async () => state.resetRequestCounts(),
    addToken: async (t: NewTokenSpec): Promise<AddedToken> => {
      const p = toPrincipal({ ...t, token: t.token ?? newSecret("cms_tok_") }, "token", state.now());
      state.tokens.add(p);
      return {
        token: p.token,
        ...(p.name !== undefined ? { name: p.name } : {}),
        permissions: [...p.permissions],
        scope: p.scope,
        plan: p.plan,
        ...(p.expiresAt !== undefined ? { expires_at: new Date(p.expiresAt).toISOString() } : {}),
      };
    },
    revokeToken: async (token: string) => {
      if (!state.tokens.remove(token)) throw new ServiceError(404, "not_found", "no such token");
    },
    setTimings: async (t: Timings) => {
      try {
        checkTimings(t);
      } catch (e) {
        throw validationFailed((e as Error).message);
      }
      state.setTimings(t);
    },
    clusters: async (): Promise<ApiCluster[]> => {
      const now = state.now();
      state.purge(now);
      return state.inOrder().map((c) => {
        settle(c, now);
        return toApiCluster(c);
      });
    },
    faults: async () => state.faults.list(),
    timings: async () => state.timings(),
    stats: async () => {
      const m = process.memoryUsage();
      return { ...state.size(), rss_bytes: m.rss, heap_used_bytes: m.heapUsed };
    },
  };
}

/** Control operations beyond {@link EmulatorControl}, served over HTTP too. */
export interface ControlExtras {
  faults(): Promise<unknown[]>;
  timings(): Promise<Required<Timings>>;
  stats(): Promise<{ clusters: number; nodes: number; rss_bytes: number; heap_used_bytes: number }>;
}

export { ServiceError };
