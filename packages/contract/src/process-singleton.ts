/**
 * A value shared by every copy of this package loaded in the process (a program and the
 * dynamic-provider host can each `require` their own copy): kept on `globalThis` under a
 * registered symbol, created by `init` on first use.
 */
export function processSingleton<T>(key: symbol, init: () => T): T {
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  let value = g[key];
  if (value === undefined) {
    value = init();
    g[key] = value;
  }
  return value;
}
