/**
 * Shared polling carries the waits' deadlines (src/provider/polling/shared-poll.ts): a round's requests
 * end by the earliest deadline of the waits it serves, so no wait is held past its own by a
 * round it shares with a later one.
 */
import { describe, expect, it } from "vitest";
import type { ApiCluster, ApiClusterList, CallOptions } from "../../../src/client";
import { SharedPoller } from "../../../src/provider/polling/shared-poll";
import { ManualClock } from "@pulumi-cms/contract";

const running = (id: string): ApiCluster => ({ id, name: id, status: "running" }) as unknown as ApiCluster;

describe("a shared round's deadline", () => {
  it("is the earliest of its waits', for the listing and for a GET alike", async () => {
    const clock = new ManualClock(0);
    const seen: Array<[string, CallOptions | undefined]> = [];
    const clusters = ["cls_a", "cls_b"].map(running);
    const poller = new SharedPoller(
      {
        identity: "fake-deadline",
        async getCluster(id: string, within?: CallOptions) {
          seen.push([`get ${id}`, within]);
          return running(id);
        },
        async listClusters(_query: object, within?: CallOptions): Promise<ApiClusterList> {
          seen.push(["list", within]);
          return { items: clusters, total: clusters.length, page: 1, per_page: 100 };
        },
      },
      clock,
    );
    const create = { at: 60_000, name: "create timeout" };
    const update = { at: 1_800_000, name: "update timeout" };
    await Promise.all([poller.observe("cls_a", 0, { deadline: update }), poller.observe("cls_b", 0, { deadline: create })]);
    expect(seen).toEqual([["list", { deadlineInMs: 60_000, deadlineName: "create timeout" }]]);
    seen.length = 0;
    await poller.observe("cls_a", 0, { deadline: update });
    expect(seen).toEqual([["get cls_a", { deadlineInMs: 1_800_000, deadlineName: "update timeout" }]]);
  });
});
