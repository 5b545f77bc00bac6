/**
 * The `/_emulator/` control routes, method and path: the table the README documents. Kept apart
 * from routes.ts so that importing it (it is public) does not pull in the HTTP server's
 * types.
 */
/** Route table of the control API. */
export const CONTROL_ROUTES = {
  reset: "POST /_emulator/reset",
  listFaults: "GET /_emulator/faults",
  injectFault: "POST /_emulator/faults",
  clearFaults: "DELETE /_emulator/faults",
  failNext: "POST /_emulator/fail-next",
  scale: "POST /_emulator/clusters/:cluster_id/scale",
  resize: "POST /_emulator/clusters/:cluster_id/resize",
  upgrade: "POST /_emulator/clusters/:cluster_id/upgrade",
  deleteCluster: "DELETE /_emulator/clusters/:cluster_id",
  rotateKubeconfig: "POST /_emulator/clusters/:cluster_id/rotate-kubeconfig",
  clusters: "GET /_emulator/clusters",
  requestCounts: "GET /_emulator/request-counts",
  resetRequestCounts: "DELETE /_emulator/request-counts",
  addToken: "POST /_emulator/tokens",
  revokeToken: "DELETE /_emulator/tokens",
  timings: "GET /_emulator/timings",
  setTimings: "PATCH /_emulator/timings",
  stats: "GET /_emulator/stats",
} as const;
