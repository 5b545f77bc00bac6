/**
 * The Cluster dynamic provider and its pure building blocks. The resource class lives in
 * `../resources`; this folder is what runs inside Pulumi's dynamic-provider host.
 */
export { serializableProvider, implementationSpecifier, IMPLEMENTATION_FILE } from "./serializable";
export { importMismatches } from "./adoption";
export {
  clusterProvider,
  createClusterProvider,
  type ClusterProvider,
  type ProviderSettings,
} from "./cluster-provider";
export {
  checkCluster,
  endpointProblem,
  DEFAULT_PHASE,
  type CheckFailure,
  type CheckClusterResult,
  type CheckOptions,
} from "./check";
export { diffCluster, type ClusterDiff, type PropertyDiff, type PropertyDiffKind } from "./diff";
export {
  toCreateRequest,
  toUpdateRequest,
  toOutputs,
  toInputsAfterRead,
} from "./mapping";
export { toClusterInfo, toNodeInfo, type ClusterInfo, type NodeInfo } from "../shared/cluster-info";
export { nextPollDelay, pollInstants, DEFAULT_POLL_SCHEDULE, type PollSchedule } from "./schedule";
export { parseDuration, formatDuration } from "./durations";
export {
  resolveTimeouts,
  validateTimeouts,
  timeoutStringsFrom,
  DEFAULT_TIMEOUTS,
  TIMEOUT_OPERATIONS,
  type Timeouts,
  type TimeoutStrings,
  type TimeoutProblem,
} from "./timeouts";
export {
  autoName,
  sanitizeNamePrefix,
  randomSuffix,
  resourceNameFromUrn,
  nameProblem,
  NAME_PATTERN,
  NAME_MAX_LENGTH,
  AUTONAME_SUFFIX_LENGTH,
} from "./naming";
export { chooseKubeconfig, kubeconfigIdentity, canonicalJson } from "./kubeconfig";
export {
  resolveConnection,
  ConnectionError,
  CONFIG_ENDPOINT_KEY,
  CONFIG_TOKEN_KEY,
  ENV_ENDPOINT,
  ENV_TOKEN,
  safeMessage,
  type Connection,
  type ConnectionInputs,
  type ConnectionSources,
} from "../connection";
export { ClusterInitError } from "./errors";
export {
  waitForCluster,
  judgeStatus,
  WaitError,
  type WaitOptions,
  type WaitTarget,
  type StatusVerdict,
} from "./waiter";
export { systemClock, ManualClock, type Clock } from "../shared/clock";
export { progressLine } from "./progress-line";
export { setProgressSink, progressSink, engineAddressFromHost, NO_PROGRESS, type ProgressSink } from "./progress";
export { UNKNOWN, isUnknown, containsUnknown } from "./unknown";
export type { ClusterAttributes, ClusterInputs, ClusterOutputs, HiddenInputs } from "./types";
