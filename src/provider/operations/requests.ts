/**
 * What each operation is asked, in the core's terms. Each host builds these from what its engine
 * protocol gives: the native host from the gRPC request (URN, timeout, preview, the provider's
 * configuration), the dynamic host from the hidden inputs its `Cluster` carries because Pulumi's
 * Node dynamic-provider host passes none of that on (`hosts/dynamic/requests.ts`).
 */
import type { TimeoutStrings } from "../properties/timeouts";
import type { ClusterInputs, ClusterOutputs } from "../types";

/** What every request may name. */
export interface ResourceRequest {
  /** URN of the resource: progress lines attach to it, and an auto-name derives from it. */
  urn?: string;
}

/** A request of an operation that waits, and so has a time limit. */
export interface TimedRequest extends ResourceRequest {
  /** The resource's `customTimeouts`, as given (Go durations); an operation left out gets its default. */
  timeouts?: TimeoutStrings;
}

/** `check`: validate the program's inputs and fill in defaults. */
export interface CheckRequest extends ResourceRequest {
  /** The inputs the state records for the resource; empty when the state holds none. */
  olds: Record<string, unknown>;
  /** The program's inputs (unknown values as `UNKNOWN` in a preview). */
  news: Record<string, unknown>;
  /** The stack's auto-name seed (32 hex digits; `UNKNOWN` in a brand-new stack's preview), used when `news` has no name. */
  seed?: unknown;
  /** The `customTimeouts` the program gave, to be checked (a host whose engine checks them leaves this out). */
  timeouts?: unknown;
  /** The id given with the `import` resource option, to be checked. */
  importId?: unknown;
  /**
   * The name the program read from the state for this resource, so check recognises a
   * replacement the engine shows it as a new resource (`up --replace`; see `../naming/adoption.ts`).
   */
  inState?: { name?: unknown };
}

/** `diff`: the state against the checked inputs. */
export interface DiffRequest extends ResourceRequest {
  id: string;
  /** The outputs the state records. */
  olds: Record<string, unknown>;
  /** The checked inputs. */
  news: Record<string, unknown>;
}

/** `create`: make the cluster (or take over the one named by `importId`). */
export interface CreateRequest extends TimedRequest {
  /** The checked inputs. */
  inputs: ClusterInputs;
  /** The id given with the `import` resource option: the cluster is taken over, not created. */
  importId?: string;
  /** A preview: nothing is done, every reported value is unknown. */
  preview?: boolean;
}

/** `read`: the cluster as the service has it. */
export interface ReadRequest extends ResourceRequest {
  id: string;
  /** The outputs the state records; empty for a lookup. */
  state: Partial<ClusterOutputs>;
  /**
   * Set for a lookup of a cluster the state does not hold yet, naming it in messages
   * (`Cluster.get`, `pulumi import`): a missing cluster fails naming the id, where a refresh drops
   * it from the state.
   */
  lookup?: string;
}

/** `update`: move the cluster from the state to the checked inputs. */
export interface UpdateRequest extends TimedRequest {
  id: string;
  /** The outputs the state records. */
  olds: ClusterOutputs;
  /** The checked inputs. */
  news: ClusterInputs;
  /** A preview: nothing is done, the outputs are the state's with the inputs' changes. */
  preview?: boolean;
}

/** `delete`: delete the cluster and wait until it is gone. */
export interface DeleteRequest extends TimedRequest {
  id: string;
  /** The outputs the state records. */
  state: Partial<ClusterOutputs>;
}
