/**
 * Wire types of the Cluster Management Service v1 API, exactly as they travel over HTTP
 * (snake_case), shared by the client, the emulator and the provider. The provider (`pulumi-cms`)
 * maps them to camelCase in its `src/shared/domain/cluster-info.ts` and `src/provider/properties/mapping.ts`;
 * nothing else reshapes them. The cluster and node objects are made from the declaration of their
 * fields (fields.ts).
 */
import type { ClusterFields, CreateObject, NodeFields, UpdateObject, WireObject } from "./fields";

/** Body returned by POST /v1/clusters (abbreviated cluster): the fields `reported: "summary"` of fields.ts. */
export interface ApiClusterSummary extends WireObject<ClusterFields, { reported: "summary" }> {}

/** Full cluster object: GET /v1/clusters/{id} and list items; every field on the wire of fields.ts (`infra_id`, not guaranteed by the spec, optional). */
export interface ApiCluster extends ApiClusterSummary, WireObject<ClusterFields> {}

/** The largest `per_page` of `GET /v1/clusters` (the spec's bound). */
export const MAX_PER_PAGE = 100;

/**
 * GET /v1/clusters response. The documentation lists `total`, `page` and `per_page`; a reader
 * copes without them (the answer schema requires only `items`; docs/api-contract.md, Listings).
 */
export interface ApiClusterList {
  items: ApiCluster[];
  total?: number;
  page?: number;
  per_page?: number;
}

/** POST /v1/clusters request body: every argument on the wire of fields.ts; those the create may leave out (`phase`, `infra_id`) optional. */
export interface CreateClusterRequest extends CreateObject<ClusterFields> {}

/** PATCH /v1/clusters/{id} request body: the arguments fields.ts updates in place (`workers`, `node_size`), each optional. */
export interface UpdateClusterRequest extends UpdateObject<ClusterFields> {}

/** Node object: GET /v1/clusters/{id}/nodes items and GET .../nodes/{node_id}; the fields of fields.ts's `NODE_FIELDS`. */
export interface ApiNode extends WireObject<NodeFields> {}

/** GET /v1/clusters/{id}/nodes response; a reader copes without `total`, as the answer schema does. */
export interface ApiNodeList {
  items: ApiNode[];
  total?: number;
}
