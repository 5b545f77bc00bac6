/**
 * Node's module compile cache inside the dynamic-provider host. `cluster-provider.ts` imports this
 * module before any other, so the cache is on before the provider and its HTTP client load (also
 * for the provider texts of earlier releases, which require that file directly); the connector
 * saves it once the client is loaded (`../compile-cache.ts`).
 */
import * as nodeModule from "node:module";
import { engineAddressFromHost } from "./host-process";

/**
 * Inside the host, turn on Node's module compile cache before the provider and its HTTP client
 * are loaded: a host is a new process for every command, and most of the time it spends loading
 * them is compiling the same files again. Node keeps the cache where `NODE_COMPILE_CACHE` says,
 * else under the temporary directory; `NODE_DISABLE_COMPILE_CACHE=1` turns it off, and Node
 * ignores a directory it cannot use. The cache is keyed by each file's contents, so an upgrade
 * never runs stale code. Returns the cache directory, or undefined when none is in use.
 */
export function useCompileCacheInHost(inHost: boolean = engineAddressFromHost() !== undefined): string | undefined {
  if (!inHost || typeof nodeModule.enableCompileCache !== "function") return undefined;
  try {
    return nodeModule.enableCompileCache().directory;
  } catch {
    return undefined; // an optimization only: never a reason to fail an operation
  }
}

useCompileCacheInHost();
