/**
 * The property bags the dynamic provider exchanges with the Pulumi engine, in camelCase.
 * Wire (snake_case) shapes live in `@pulumi-cms/contract`; `mapping.ts` converts between the two.
 */
import type { ConnectionInputs } from "../connection";
import type { ClusterAttributes } from "../shared/cluster-info";
import type { NodeSize, Phase } from "@pulumi-cms/contract";
import type { TimeoutStrings } from "./timeouts";

/**
 * Hidden inputs the Cluster resource adds for the provider's own use. `diff` ignores them:
 * changing them alone is never a change to the cluster.
 */
export interface HiddenInputs {
  /** `customTimeouts` of the resource, copied because the host does not pass them on. */
  __timeouts?: TimeoutStrings;
  /** URN of the resource: progress messages are attached to it and the auto-name derives from it. */
  __urn?: string;
  /** Set by check when it generated `name`, so later checks keep it and diff knows it is not the user's. */
  __autonamed?: boolean;
  /** Cluster id given with the `import` resource option: create adopts it instead of POSTing. */
  __import?: string;
  /**
   * Set by `Cluster.get`: the read is a lookup of a cluster the state does not hold yet, which
   * fails naming the id when there is none, rather than a refresh, which drops a vanished cluster
   * from the state. Never recorded in the outputs. A string names the lookup in messages
   * (`pulumi import`); `true` is `Cluster.get`.
   */
  __get?: boolean | string;
  /**
   * What the program read from the state for this resource (`{ name }`), so check recognises a
   * replacement the engine shows it as a new resource (`up --replace`). Check removes it.
   */
  __inState?: { name: string };
  /** When check last ran for a create (ISO time): narrows `cms-recover`'s candidates (see src/recover). */
  __requestedAt?: string;
  /**
   * The stack's auto-name seed (`resources/autoname-seed.ts`), given to auto-named clusters: check
   * mixes it into a new auto-name, which then proves the cluster is this stack's (see `naming.ts`).
   */
  __seed?: string;
}

/** Inputs after check: what create/update/diff receive as `news`. */
export interface ClusterInputs extends HiddenInputs {
  /** Cluster name (given, or the auto-name check generated). */
  name: string;
  /** 1 or 3. */
  controlPlanes: number;
  /** At least 1. */
  workers: number;
  /** Node size. */
  nodeSize: NodeSize;
  /** Defaulted to `managed` by check. */
  phase: Phase;
  /** Required unless `phase` is `managed`. */
  infraId?: string;
  /** Explicit connection, if the program gave one. */
  connection?: ConnectionInputs;
  /** Serialized provider, managed by the Pulumi SDK. */
  __provider?: string;
}

export type { ClusterAttributes };

/** Outputs (state) of a Cluster: what read/update/delete receive as `olds`/`props`. */
export interface ClusterOutputs extends HiddenInputs, ClusterAttributes {
  /** Kubeconfig YAML; marked secret through `additionalSecretOutputs`. */
  kubeconfig?: string;
  /** Echo of the explicit connection, so read and delete can reach the service. Secret token. */
  connection?: ConnectionInputs;
  /** Serialized provider (the host adds it; init-error properties carry it explicitly). */
  __provider?: string;
}

/** Changes that the API can apply in place (PATCH). */
export const UPDATABLE_PROPERTIES = ["workers", "nodeSize"] as const;
/** Changes that need a new cluster. */
export const REPLACE_PROPERTIES = ["name", "controlPlanes", "phase", "infraId"] as const;
/** The properties a user sets, the ones diff looks at: each is updated in place or replaces. */
export const CLUSTER_INPUT_PROPERTIES = [...REPLACE_PROPERTIES, ...UPDATABLE_PROPERTIES] as const;
