/** `diff`: compare the state with the program (see `../properties/diff.ts`). Makes no API call. */
import type { DiffResult } from "./results";
import { diffCluster } from "../properties/diff";
import type { DiffRequest } from "./requests";

export async function diff(request: DiffRequest): Promise<DiffResult> {
  return diffCluster(request.olds, request.news);
}
