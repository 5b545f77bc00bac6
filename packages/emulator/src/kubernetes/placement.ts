/**
 * Where an emulated cluster's Kubernetes API lives: its own API server
 * ({@link LocalControlPlanes}) or a namespace of a cluster the user already has
 * ({@link ExistingCluster}).
 */
import type { KubeConnection } from "./kube-api";

/** One cluster's place. */
export interface ClusterPlacement {
  /** The kubeconfig's `server`: known at once, working once {@link ready} resolves. */
  endpoint: string;
  /** The kubeconfig context's namespace. */
  namespace: string;
  /** The emulator's own access to the cluster's API, and the CA its kubeconfigs carry. */
  ready: Promise<{ admin: KubeConnection; caPem: string }>;
  /** The cluster is gone: stop serving it and drop its data. */
  stop(): Promise<void>;
  /** The emulator stops: stop serving, keep the data for the next start (with `--state`). */
  suspend(): Promise<void>;
}

/** A way of giving clusters a Kubernetes API. */
export interface Placement {
  /**
   * What a kubeconfig's credential may do: everything in its own API server (`cluster`), or
   * everything in its namespace plus reading namespaces and nodes (`namespace`).
   */
  readonly scope: "cluster" | "namespace";
  /**
   * The Kubernetes version its API servers serve (`v1.37.2`): the version of every cluster it
   * backs and of their nodes, so that the API, the Node objects and `kubectl version` agree.
   */
  readonly version: string;
  /** Starts serving a cluster; `endpoint` is the one it had before a restart. */
  place(clusterId: string, endpoint: string | undefined): Promise<ClusterPlacement>;
  close(): Promise<void>;
}
