/**
 * Node's module compile cache in the processes the engine starts for every command: the
 * dynamic-provider host (`dynamic/compile-cache.ts` turns it on there) and the native plugin (its
 * bin turns it on before it loads the bundle: `scripts/bundle.mjs`). Most of the time such a
 * process spends loading the provider and its HTTP client is compiling the same code again.
 */
import * as nodeModule from "node:module";

/**
 * Write what has been compiled so far to the cache, when one is on. Node writes it when the
 * process exits, but the engine ends its plugins with a signal, and a process ended by a signal
 * writes nothing. Costs nothing when every module loaded was already in the cache.
 */
export function saveCompileCache(): void {
  if (typeof nodeModule.flushCompileCache !== "function" || typeof nodeModule.getCompileCacheDir !== "function") return;
  try {
    if (nodeModule.getCompileCacheDir() !== undefined) nodeModule.flushCompileCache();
  } catch {
    // an optimization only: never a reason to fail an operation
  }
}
