/** Wire objects as the service sends them, for the pure tests of what reads them. */
import type { ApiCluster } from "@pulumi-cms/contract";

/** A running cluster with every field, `infra_id` null. */
export const API_CLUSTER: ApiCluster = {
  id: "cls_0123456789abcdef",
  name: "prod",
  status: "running",
  phase: "managed",
  control_planes: 3,
  workers: 2,
  node_size: "medium",
  node_count: 5,
  endpoint: "https://10.1.2.3:6443",
  kubernetes_version: "v1.30.2",
  created_at: "2024-01-01T00:00:00Z",
  updated_at: "2024-01-01T00:05:00Z",
  infra_id: null,
};
