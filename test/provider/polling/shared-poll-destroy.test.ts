/**
 * Shared polling in a destroy (src/provider/polling/shared-poll.ts, src/hosts/engine-waves.ts): the engine
 * deletes without checking first, so nothing announces the operations to come; once it has run
 * several at once, the first polls of the deletes that follow one by one share a round.
 */
import { describe, expect, it } from "vitest";
import type { ApiCluster, ApiClusterList } from "../../../src/client";
import { systemClock } from "@pulumi-cms/contract";
import { SharedPoller } from "../../../src/provider/polling/shared-poll";
import { ENGINE_SPELLS, EngineWaves, noExpectedOperations } from "../../../src/hosts/engine-waves";

const deleting = (id: string): ApiCluster => ({ id, name: id, status: "deleting" }) as unknown as ApiCluster;

describe("first polls after DELETEs that come one by one", () => {
  it("after a wave of several, a delete's first poll waits for a quiet spell, so the next one shares its listing", async () => {
    const calls: string[] = [];
    const clusters = ["a", "b", "c", "d"].map(deleting);
    // The dynamic host's waves, before any check: a destroy.
    const expected = noExpectedOperations();
    const poller = new SharedPoller(
      {
        identity: "fake-destroy",
        async getCluster(id: string) {
          calls.push(`get ${id}`);
          return clusters.find((c) => c.id === id) as ApiCluster;
        },
        async listClusters(): Promise<ApiClusterList> {
          calls.push("list");
          return { items: clusters, total: clusters.length, page: 1, per_page: 100 };
        },
      },
      systemClock,
      new EngineWaves(() => expected, ENGINE_SPELLS, new Map()),
    );
    const firstAfterDelete = (id: string) => poller.observe(id, 60_000, { first: true, gone: true });
    // The engine's first wave: two deletes at once. Nothing has shown how this service deletes
    // yet, so one GET finds out: the cluster is still deleting. The other shares a listing.
    await Promise.all([firstAfterDelete("a"), firstAfterDelete("b")]);
    expect(calls).toEqual(["get a", "get b"]);
    // Then deletes one at a time, milliseconds apart.
    const c = firstAfterDelete("c");
    await new Promise((resolve) => setTimeout(resolve, ENGINE_SPELLS.gatherMs / 4));
    const d = firstAfterDelete("d");
    await Promise.all([c, d]);
    expect(calls).toEqual(["get a", "get b", "list"]);
  });
});
