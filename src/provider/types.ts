/**
 * A Cluster's inputs and outputs in the core's terms, camelCase, as both faces record them in the
 * state (the dynamic `Cluster` and the native `cms:index:Cluster`). What the engine says about one
 * call (the URN, the timeouts, how it was asked for) is not here: each operation takes it in its
 * request (`operations/requests.ts`). Wire (snake_case) shapes live in `@pulumi-cms/contract`;
 * `properties/mapping.ts` converts between the two.
 */
import type { ConnectionInputs } from "../connection";
import type { ClusterArguments, ClusterAttributes } from "../shared/domain/cluster-info";
import { clusterArguments, type ClusterFields, type FieldsWhere } from "@pulumi-cms/contract";

/**
 * What check records beside the program's inputs, under the names the state has always had
 * (state written by every release must load, so they are part of the state format). `diff`
 * ignores them: changing them alone is never a change to the cluster.
 */
export interface RecordedFields {
  /** Set by check when it generated `name`, so later checks keep it and diff knows it is not the user's. */
  __autonamed?: boolean;
  /** When check last ran for a create (ISO time): narrows `cms-recover`'s candidates (see src/recover). */
  __requestedAt?: string;
  /**
   * The stack's auto-name seed (`naming/auto-name.ts`), recorded with an auto-named cluster: it makes the
   * auto-name this stack's alone, which lets create take over a cluster an interrupted run made.
   */
  __seed?: string;
}

/**
 * Inputs after check: what create/update/diff receive. The arguments are the declaration's
 * (`ClusterArguments`, generated from `@pulumi-cms/contract`; the name given or the auto-name check
 * generated, `phase` defaulted to `managed`).
 */
export interface ClusterInputs extends RecordedFields, ClusterArguments {
  /** Explicit connection, if the program gave one. */
  connection?: ConnectionInputs;
}

export type { ClusterAttributes };

/** Outputs (state) of a Cluster: what read/update/delete receive as the state. */
export interface ClusterOutputs extends RecordedFields, ClusterAttributes {
  /** Kubeconfig YAML; marked secret through `additionalSecretOutputs`. */
  kubeconfig?: string;
  /** Echo of the explicit connection, so read and delete can reach the service. Secret token. */
  connection?: ConnectionInputs;
}

/** Changes that the API can apply in place (PATCH): the fields declared `onChange: "update"`. */
export const UPDATABLE_PROPERTIES = clusterArguments((f) => f.onChange === "update") as readonly FieldsWhere<
  ClusterFields,
  { onChange: "update" }
>[];
/** Changes that need a new cluster: the fields declared `onChange: "replace"`. */
export const REPLACE_PROPERTIES = clusterArguments((f) => f.onChange === "replace") as readonly FieldsWhere<
  ClusterFields,
  { onChange: "replace" }
>[];
/** The properties a user sets, the ones diff looks at: each is updated in place or replaces. */
export const CLUSTER_INPUT_PROPERTIES = [...REPLACE_PROPERTIES, ...UPDATABLE_PROPERTIES] as const;
