/**
 * What each operation is asked, in the core's terms. Each host builds these from what its engine
 * protocol gives: the native host from the gRPC request (URN, timeout, preview, the provider's
 * configuration), the dynamic host from the hidden inputs its `Cluster` carries because Pulumi's
 * Node dynamic-provider host passes none of that on (`hosts/dynamic/requests.ts`).
 */
import type { TimeoutStrings } from "../properties/timeouts";
import type { UNKNOWN } from "../properties/unknown";
import type { ClusterInputs, ClusterOutputs } from "../types";

/**
 * The inputs a program gave, before check judges them: the properties check reads, each of any
 * type (a wrong one is a check failure naming the property and the rule, not an error), and
 * unknown in a preview.
 */
export type ProgramInputs = { [K in keyof ClusterInputs]?: unknown };

/** `T` with each property possibly unknown: checked inputs in a preview (a value computed from another resource's output). */
export type Previewed<T> = { [K in keyof T]: T[K] | typeof UNKNOWN };

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
  /**
   * The inputs the state records for the resource; empty when the state holds none. Check reads
   * only the name it kept there, and judges nothing in them (any release may have written them).
   */
  olds: ProgramInputs;
  /** The program's inputs (unknown values as `UNKNOWN` in a preview). */
  news: ProgramInputs;
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
  olds: Partial<ClusterOutputs>;
  /** The checked inputs (any may be unknown: the engine asks for a diff in a preview too). */
  news: Previewed<ClusterInputs>;
}

/** `create`: make the cluster (or take over the one named by `importId`). */
export type CreateRequest = CreateCall & (Previewing<"inputs"> | Doing<"inputs">);

interface CreateCall extends TimedRequest {
  /** The id given with the `import` resource option: the cluster is taken over, not created. */
  importId?: string;
}

/** A preview: nothing is done, and the checked inputs (`K`) may hold unknowns. */
type Previewing<K extends string> = { preview: true } & { [P in K]: Previewed<ClusterInputs> };
/** The operation itself, on checked inputs (`K`) that are all known. */
type Doing<K extends string> = { preview?: false } & { [P in K]: ClusterInputs };

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

/** `update`: move the cluster from the state to the checked inputs (`news`); a preview does nothing, its outputs are the state's with the inputs' changes. */
export type UpdateRequest = UpdateCall & (Previewing<"news"> | Doing<"news">);

interface UpdateCall extends TimedRequest {
  id: string;
  /** The outputs the state records. */
  olds: ClusterOutputs;
}

/** `delete`: delete the cluster and wait until it is gone. */
export interface DeleteRequest extends TimedRequest {
  id: string;
  /** The outputs the state records. */
  state: Partial<ClusterOutputs>;
}
