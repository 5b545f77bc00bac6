/** `diff`: compare the state with the program (see `../diff.ts`). Makes no API call. */
import type { DiffResult } from "./results";
import { diffCluster } from "../diff";
import { stopExpecting } from "../shared-poll";
import type { DiffRequest } from "./requests";

export async function diff(request: DiffRequest): Promise<DiffResult> {
  const result = diffCluster(request.olds, request.news);
  // No change: no operation follows, the first polls of the wave need not wait for one.
  if (!result.changes) stopExpecting(request.urn);
  return result;
}
