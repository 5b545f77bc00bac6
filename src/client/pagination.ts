/**
 * Walking `GET /v1/clusters` page by page. The spec shows neither whether a page always carries
 * `total` and `per_page` nor the largest `per_page` (a service may clamp it without saying so),
 * and a partial list would read as "these are all the clusters" (a duplicate create, a wrong
 * "nothing to recover"). So a listing is complete or fails:
 * - the page size is the one the service reports (`per_page`), else the one its first page shows
 *   it used (fewer or more items than asked while `total` says there are more), else the one asked;
 * - with `total`, every page must hold what `total` and that size leave for it, and the page that
 *   reaches `total` is the last;
 * - without `total`, a page shorter than the size, or an empty one, is the last; when the service
 *   reports no size either, a short first page may be a clamped one, so the second is asked for;
 * - a page that repeats the previous one (the service ignores `page`), or one that contradicts
 *   `total`, fails the listing with an error saying what the service did.
 */
import { ApiError } from "./errors";
import { type ApiCluster, type ApiClusterList, type ClusterStatus, MAX_PER_PAGE } from "@pulumi-cms/contract";

/** Guard against a service that never stops answering full pages: 1,000,000 clusters. */
const MAX_PAGES = 10_000;

/** What walking the pages needs of a client (`CmsClient` has it). */
export interface ClusterLister {
  /** `GET /v1/clusters`: one page. */
  listClusters(query: { page?: number; perPage?: number; status?: ClusterStatus }): Promise<ApiClusterList>;
}

/** Whether `list`, page number `page` of a listing with page size `perPage`, is its last page. */
export function isLastPage(list: ApiClusterList, page: number, perPage: number = MAX_PER_PAGE): boolean {
  const size = reportedPageSize(list) ?? perPage;
  const total = totalOf(list) ?? Number.POSITIVE_INFINITY;
  return list.items.length === 0 || list.items.length < size || page * size >= total;
}

/**
 * How many pages the listing has, as its first page tells: from `total`, else only this one. A
 * lower bound for a service that leaves `total` out; callers that need every cluster walk
 * {@link clusterPages} instead.
 */
export function listPageCount(list: ApiClusterList): number {
  const total = totalOf(list) ?? list.items.length;
  return Math.max(1, Math.ceil(total / usedPageSize(list, MAX_PER_PAGE)));
}

/**
 * The page size a first page shows the service used: the one it reports, else the number of
 * items when `total` says there are more (it clamped, or ignored, the size asked for), else the
 * one asked for (or more, when it sent more).
 */
function usedPageSize(first: ApiClusterList, asked: number): number {
  const reported = reportedPageSize(first);
  if (reported !== undefined) return reported;
  const n = first.items.length;
  const total = totalOf(first);
  if (total !== undefined) return n > 0 && n < total ? n : asked;
  return Math.max(n, asked);
}

function reportedPageSize(list: ApiClusterList): number | undefined {
  return typeof list.per_page === "number" && Number.isInteger(list.per_page) && list.per_page > 0 ? list.per_page : undefined;
}

/** `total` when the page carries a usable one. */
export function totalOf(list: ApiClusterList): number | undefined {
  return typeof list.total === "number" && Number.isInteger(list.total) && list.total >= 0 ? list.total : undefined;
}

/** The error that ends a listing the service answered inconsistently; `what` says what it did. */
export function listingError(what: string): ApiError {
  return new ApiError({
    status: 200,
    code: "invalid_listing",
    message: `CMS API GET /v1/clusters: ${what}; the listing cannot be trusted to be complete, so it was abandoned.`,
    method: "GET",
    path: "/v1/clusters",
  });
}

/** Every page of the cluster listing (optionally of one status), in order, up to the last. */
export async function* clusterPages(client: ClusterLister, query: { status?: ClusterStatus } = {}): AsyncGenerator<ApiClusterList> {
  let size = MAX_PER_PAGE;
  /** Clusters on the pages before this one. */
  let before = 0;
  let previousIds = "";
  /** The first page was short and said neither `total` nor `per_page`: this page tells whether it was clamped. */
  let confirming = false;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await client.listClusters({ page, perPage: MAX_PER_PAGE, status: query.status });
    const n = list.items.length;
    const total = totalOf(list);
    const ids = list.items.map((c) => c?.id).join("\n");
    if (page > 1 && n > 0 && ids === previousIds) {
      throw listingError(`page ${page} repeats page ${page - 1} (the same ${n} clusters), so the service ignores \`page\``);
    }
    previousIds = ids;
    if (page === 1) {
      size = usedPageSize(list, MAX_PER_PAGE);
      confirming = n > 0 && n < size && total === undefined && reportedPageSize(list) === undefined;
    } else if (confirming) {
      confirming = false;
      if (n === 0) return;
      size = before; // the first page was a full one of a size the service chose
    }
    const reported = reportedPageSize(list);
    if (reported !== undefined && reported !== size) {
      throw listingError(`page ${page} says \`per_page\` ${reported} where earlier pages used ${size}`);
    }
    if (total !== undefined) {
      const expected = Math.min(size, Math.max(0, total - before));
      if (n !== expected) {
        throw listingError(
          `page ${page} holds ${n} clusters where \`total\` ${total} leaves ${expected} for it (${before} on earlier pages, ${size} a page)`,
        );
      }
    }
    yield list;
    before += n;
    if (!confirming && isLastPage(list, page, size)) return;
  }
  throw listingError(`${MAX_PAGES} pages of ${size} clusters and still no last page`);
}

/**
 * Passes over the listing when its pages and `total` disagree: clusters created or deleted between
 * two pages can do that once; a service that does it every time is answering inconsistently.
 */
const LISTING_PASSES = 3;

/**
 * Every cluster (optionally of one status), walking all pages ({@link clusterPages}). Complete or
 * an error: pages that contradict each other or `total`, listing after listing, fail it.
 */
export async function allClusters(client: ClusterLister, query: { status?: ClusterStatus } = {}): Promise<ApiCluster[]> {
  for (let pass = 1; ; pass++) {
    const seen = new Map<string, ApiCluster>();
    let total: number | undefined;
    // Clusters created or deleted while we page can shift items across pages: key by id.
    for await (const list of clusterPages(client, query)) {
      for (const c of list.items) seen.set(c.id, c);
      total = totalOf(list);
    }
    if (total === undefined || seen.size === total) return [...seen.values()];
    if (pass === LISTING_PASSES) {
      throw listingError(
        `the pages held ${seen.size} different clusters where \`total\` says ${total}, in ${LISTING_PASSES} listings in a row`,
      );
    }
  }
}
