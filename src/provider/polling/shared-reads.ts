/**
 * Shared reads: a `refresh` (or `preview --refresh`, `up --refresh`, a drift gate) reads every
 * cluster of the stack, and the engine sends those reads to this process within moments of each
 * other. Instead of one `GET /v1/clusters/{id}` each, they are answered from list pages
 * (`GET /v1/clusters?per_page=100`) fetched once and shared, so a pass over N clusters costs
 * ceil(N/100) list calls instead of N gets (plus one kubeconfig each, which no list carries).
 *
 * Why: a token's per-minute budget is shared by every pipeline that uses it. Fifty clusters read
 * one by one spend fifty calls per pass; a `refresh` with its preview spends two passes.
 *
 * Rules (a read must return what a GET would):
 * - Pages serve one pass: reads that keep arriving less than {@link PASS_GAP_MS} apart (a pass
 *   paced by the rate limit can take minutes), for at most {@link PASS_MAX_MS}. They are dropped
 *   at once when this process writes through the same connection. So a read returns a status
 *   no older than the pass it belongs to, as a GET sent at the start of the pass would.
 * - A cluster found in a page is returned when the page carries the full cluster object;
 *   otherwise, or when it is not found, it gets its own GET. Absence from a list never removes a
 *   cluster from the state: only its own GET answering 404 does. So clusters created or deleted
 *   while the pages are read (which shifts items across pages), a token scoped to some clusters
 *   (which lists only those, or cannot list), and a failed listing all fall back to the GET.
 * - Never more list pages than reads: a stack of two clusters in an account of 5,000 does not
 *   walk 50 pages; past that point reads GET.
 * - One reader per connection (endpoint + token, see `CmsClient.identity`): reads of clusters
 *   behind different endpoints or tokens are never answered from each other's pages.
 * - Pages are asked for through `listings.ts`, so a page the shared poller is listing at that
 *   moment is not asked for twice.
 */
import { listPageCount } from "../../client/pagination";
import {
  type ApiCluster,
  type ApiClusterList,
  CLUSTER_FIELDS,
  type Clock,
  type Field,
  isOfType,
  MAX_PER_PAGE,
  systemClock,
} from "@pulumi-cms/contract";
import { type InFlightListings, sharedLister } from "./listings";
import { isSharedPollClient, type SharedPollClient } from "./shared-poll";

/** A pause between reads that ends a pass. The engine sends a pass's reads back to back. */
export const PASS_GAP_MS = 5_000;
/** The longest a pass's pages answer reads. */
export const PASS_MAX_MS = 5 * 60_000;

/** What a shared reader needs of a client: the same as the shared poller. */
export type SharedReadClient = SharedPollClient;

interface Pass {
  /** When the pass started, and when its last read came. */
  startedAt: number;
  lastReadAt: number;
  pages: Map<number, Promise<ApiClusterList>>;
  /** Known once page 1 arrived. */
  pageCount?: number;
  /** Set when a listing failed or is refused (e.g. a token scoped to one cluster): GET instead. */
  unusable: boolean;
  /** Distinct clusters read in this pass (bounds the pages walked). */
  ids: Set<string>;
}

/** Reads clusters of one connection through shared list pages; see the module comment. */
export class SharedReader {
  private pass: Pass | undefined;

  constructor(
    private readonly client: SharedReadClient,
    readonly clock: Clock = systemClock,
    /** The listings in flight its pages may join (`listings.ts`). */
    private readonly listings: InFlightListings = new Map(),
  ) {}

  /** The cluster, as `GET /v1/clusters/{id}` would return it (rejects the same way, 404 included). */
  async read(id: string): Promise<ApiCluster> {
    const pass = this.currentPass();
    pass.ids.add(id);
    for (let page = 1; !pass.unusable; page++) {
      if (page > 1 && page > (pass.pageCount ?? 1)) break;
      let pending = pass.pages.get(page);
      if (!pending) {
        if (page > 1 && pass.pages.size >= pass.ids.size) break;
        pending = sharedLister(this.listings, this.client).listClusters({ page, perPage: MAX_PER_PAGE });
        pass.pages.set(page, pending);
      }
      let list: ApiClusterList;
      try {
        list = await pending;
      } catch {
        pass.unusable = true;
        break;
      }
      if (page === 1) pass.pageCount ??= listPageCount(list);
      const found = list.items.find((c) => c?.id === id);
      if (found) {
        if (isFullCluster(found)) return found;
        break;
      }
    }
    return this.client.getCluster(id);
  }

  /** Drop the pages: this process changed something they may show (a create, update or delete). */
  forget(): void {
    this.pass = undefined;
  }

  private currentPass(): Pass {
    const now = this.clock.now();
    const pass = this.pass;
    if (pass && now - pass.lastReadAt < PASS_GAP_MS && now - pass.startedAt < PASS_MAX_MS) {
      pass.lastReadAt = now;
      return pass;
    }
    this.pass = { startedAt: now, lastReadAt: now, pages: new Map(), unusable: false, ids: new Set() };
    return this.pass;
  }
}

/** The fields a GET always returns (`reported` `summary` or `full`), with their wire names. */
const ALWAYS_REPORTED = Object.values(CLUSTER_FIELDS as Record<string, Field>).filter(
  (f): f is Field & { wire: string } => f.wire !== undefined && (f.reported === "summary" || f.reported === "full"),
);

/** A list item that carries what a GET returns, each field of its type (a service may list abbreviated objects). */
function isFullCluster(c: ApiCluster): boolean {
  return ALWAYS_REPORTED.every((f) => isOfType(f, (c as unknown as Record<string, unknown>)[f.wire]));
}

/** The readers of a process by connection, and its listings in flight (its runtime's: `../runtime.ts`). */
export interface ReaderRegistry {
  readonly readers: Map<string, SharedReader>;
  readonly listings: InFlightListings;
}

/**
 * The registry's reader of this client's connection, on `clock` (a reader made on another clock
 * is replaced); undefined when the client cannot list (a test double), and reads stay one GET each.
 */
export function sharedReaderFor(registry: ReaderRegistry, clock: Clock, client: unknown): SharedReader | undefined {
  if (!isSharedPollClient(client)) return undefined;
  let reader = registry.readers.get(client.identity);
  if (!reader || reader.clock !== clock) {
    reader = new SharedReader(client, clock, registry.listings);
    registry.readers.set(client.identity, reader);
  }
  return reader;
}

/** Read cluster `id` through the registry's reader of its connection (a plain GET for other clients). */
export function readCluster(
  registry: ReaderRegistry,
  clock: Clock,
  client: SharedReadClient | Pick<SharedReadClient, "getCluster">,
  id: string,
): Promise<ApiCluster> {
  return sharedReaderFor(registry, clock, client)?.read(id) ?? client.getCluster(id);
}

/** Drop the pages of this client's connection (after a write through it). */
export function forgetReads(readers: Map<string, SharedReader>, client: unknown): void {
  if (isSharedPollClient(client)) readers.get(client.identity)?.forget();
}
