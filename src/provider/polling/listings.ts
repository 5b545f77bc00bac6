/**
 * Listing a connection's clusters: the one way the provider lists, for the shared poller's rounds
 * (`shared-poll.ts`), the refresh reader's pages (`shared-reads.ts`) and the lookup for a cluster
 * an interrupted run left (`../naming/adoption.ts`).
 *
 * One rule for sharing: a listing request joins the same request of the connection (endpoint +
 * token) already in flight in this process, else it is sent; once answered it is not kept (what
 * is kept longer, a refresh pass's pages, is the reader's own rule). A write of this process
 * through the connection, from the moment it is sent until it is answered, drops what is in flight:
 * a listing asked for after that is a new request, which can show the write.
 */
import type { CallOptions, CmsClient } from "../../client";
import type { ClusterLister } from "../../client/pagination";
import type { ApiCluster, ApiClusterList, ClusterStatus } from "@pulumi-cms/contract";

/** What a shared listing needs of a client: `CmsClient` has it. */
export interface ListingClient {
  /** Same value for clients of the same endpoint and token (the token is not in it). */
  readonly identity?: string;
  listClusters(query: { page?: number; perPage?: number; status?: ClusterStatus }, within?: CallOptions): Promise<ApiClusterList>;
}

/** Listing requests in flight by connection, then by request: the process's are its runtime's (`../runtime.ts`). */
export type InFlightListings = Map<string, Map<string, Promise<unknown>>>;

/** The request `key` of the client's connection: the one in flight, else `send()`. */
function joinOrSend<T>(listings: InFlightListings, client: { identity?: unknown }, key: string, send: () => Promise<T>): Promise<T> {
  // A client that does not name its connection (a test double) shares nothing.
  if (typeof client.identity !== "string" || client.identity === "") return send();
  let inFlight = listings.get(client.identity);
  if (!inFlight) {
    inFlight = new Map();
    listings.set(client.identity, inFlight);
  }
  const pending = inFlight.get(key) as Promise<T> | undefined;
  if (pending) return pending;
  const request = send();
  const requests = inFlight;
  requests.set(key, request);
  const done = () => {
    if (requests.get(key) === request) requests.delete(key);
  };
  request.then(done, done);
  return request;
}

/**
 * The client's `GET /v1/clusters` pages, shared while in flight (see the module comment); a page
 * this sends waits no longer than `within` allows (one it joins is bound by its sender's).
 */
export function sharedLister(listings: InFlightListings, client: ListingClient, within?: CallOptions): ClusterLister {
  return {
    listClusters: (query) =>
      joinOrSend(listings, client, `page ${query.page ?? 1}, per_page ${query.perPage ?? ""}, status ${query.status ?? ""}`, () =>
        client.listClusters(query, within),
      ),
  };
}

/** Every cluster visible to the client (`CmsClient.listAllClusters`), shared while in flight. */
export function listEveryCluster(listings: InFlightListings, client: CmsClient): Promise<ApiCluster[]> {
  return joinOrSend(listings, client, "every cluster", () => client.listAllClusters());
}

/** This process writes through the client's connection: listings asked for from now on are new. */
export function forgetListings(listings: InFlightListings, client: { identity?: unknown }): void {
  if (typeof client.identity === "string") listings.delete(client.identity);
}
