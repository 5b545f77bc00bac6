export declare function eventually<T>(
  fn: () => T | Promise<T>,
  options?: { timeoutMs?: number; intervalMs?: number; what?: string; describe?: (last: T) => string },
): Promise<T>;
