/** `diff`: compare the state with the program (see `../diff.ts`). Makes no API call. */
import type { DiffResult } from "./results";
import { diffCluster } from "../diff";
import { stopExpecting } from "../shared-poll";

export async function diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<DiffResult> {
  const result = diffCluster(olds, news);
  // No change: no operation follows, the first polls of the wave need not wait for one.
  if (!result.changes) stopExpecting(news.__urn);
  return result;
}
