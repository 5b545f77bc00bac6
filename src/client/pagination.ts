/**
 * Walking `GET /v1/clusters` page by page. The spec does not show whether a page always carries
 * `total` and `per_page`, so every rule here copes without them: a page shorter than asked for,
 * or an empty one, is the last.
 */
import { type ApiClusterList, type ClusterStatus, MAX_PER_PAGE } from "../shared/wire-types";

/** Guard against a service that never stops answering full pages: 1,000,000 clusters. */
const MAX_PAGES = 10_000;

/** What walking the pages needs of a client (`CmsClient` has it). */
export interface ClusterLister {
  /** `GET /v1/clusters`: one page. */
  listClusters(query: { page?: number; perPage?: number; status?: ClusterStatus }): Promise<ApiClusterList>;
}

/** Whether `list`, page number `page` of a listing asked for with `perPage`, is its last page. */
export function isLastPage(list: ApiClusterList, page: number, perPage: number = MAX_PER_PAGE): boolean {
  const size = pageSize(list, perPage);
  const total = typeof list.total === "number" ? list.total : Number.POSITIVE_INFINITY;
  return list.items.length === 0 || list.items.length < size || page * size >= total;
}

/**
 * How many pages the listing has, as its first page tells: from `total`, else only this one. A
 * lower bound for a service that leaves `total` out; callers that need every cluster walk
 * {@link clusterPages} instead.
 */
export function listPageCount(list: ApiClusterList): number {
  const total = typeof list.total === "number" && list.total >= 0 ? list.total : list.items.length;
  return Math.max(1, Math.ceil(total / pageSize(list, MAX_PER_PAGE)));
}

/** The page size the service reports, else the one asked for. */
function pageSize(list: ApiClusterList, asked: number): number {
  return typeof list.per_page === "number" && list.per_page > 0 ? list.per_page : asked;
}

/** Every page of the cluster listing (optionally of one status), in order, up to the last. */
export async function* clusterPages(client: ClusterLister, query: { status?: ClusterStatus } = {}): AsyncGenerator<ApiClusterList> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await client.listClusters({ page, perPage: MAX_PER_PAGE, status: query.status });
    yield list;
    if (isLastPage(list, page)) return;
  }
}
