/**
 * Long waits in virtual time: the emulator and the waiter share a manual clock, so a 10-minute
 * provisioning takes no real time while every poll is still a real HTTP call to the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { createClient } from "../../../src/client";
import { ClusterInitError } from "../../../src/provider/errors";
import { nodeListDue, waitForCluster, WaitError } from "../../../src/provider/polling/waiter";
import { clusterProvider, emulatorForProvider, inputs, rejection, virtualTime } from "../../support/provider";

const time = virtualTime();
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider(
    { clock: time.emulatorClock, provisionSeconds: 600, scaleSeconds: 120, deleteSeconds: 60 },
    { clock: time.clock },
  );
});
afterAll(async () => {
  await emu.close();
});

describe("adaptive waiting (virtual time, real HTTP)", () => {
  it("a 10-minute provisioning costs few calls and is noticed within 10 % of the wait", async () => {
    await emu.control.resetRequestCounts();
    const start = time.clock.now();
    const res = await clusterProvider.create(inputs({ name: "ten-minutes" }));
    const waited = time.clock.now() - start;
    expect(res.outs.status).toBe("running");
    // Noticed at most max(2 s, 10 %) after it became running.
    expect(waited).toBeGreaterThanOrEqual(600_000);
    expect(waited - 600_000).toBeLessThanOrEqual(Math.max(2_000, 0.1 * waited));
    const counts = await emu.control.requestCounts();
    expect(counts["POST /v1/clusters"]).toBe(1);
    expect(counts["GET /v1/clusters/:cluster_id"]).toBeLessThanOrEqual(45);
    expect(counts["GET /v1/clusters/:cluster_id/kubeconfig"]).toBe(1);
    expect(counts["GET /v1/clusters/:cluster_id/nodes"]).toBeUndefined();
  });

  it("stops at the create timeout, keeps the cluster, and the next up finishes the wait", async () => {
    const news = inputs({ name: "patient", __timeouts: { create: "5m" } });
    const start = time.clock.now();
    const err = await rejection(clusterProvider.create(news));
    expect(err).toBeInstanceOf(ClusterInitError);
    expect(time.clock.now() - start).toBe(300_000);
    expect(err.message).toMatch(/timed out after 5m/);
    const res = await clusterProvider.update(String(err.id), err.properties as Record<string, unknown>, { ...news, __timeouts: undefined });
    expect(res.outs.status).toBe("running");
    expect(time.clock.now() - start).toBeGreaterThanOrEqual(600_000);
  });

  it("waits for scaling and deleting the same way", async () => {
    const news = inputs({ name: "lifecycle" });
    const created = await clusterProvider.create(news);
    const outs = { ...created.outs, __provider: news.__provider };
    let t = time.clock.now();
    const updated = await clusterProvider.update(created.id, outs, { ...news, workers: 5 });
    expect(updated.outs.workers).toBe(5);
    expect(time.clock.now() - t).toBeGreaterThanOrEqual(120_000);
    expect(time.clock.now() - t).toBeLessThanOrEqual(120_000 + 13_400); // ≤ 10 % late (or 2 s)
    t = time.clock.now();
    await clusterProvider.delete(created.id, outs);
    expect(time.clock.now() - t).toBeGreaterThanOrEqual(60_000);
  });

  it("a service that is done when it answers: create, update and delete end without waiting for the schedule", async () => {
    await emu.control.setTimings({ provisionSeconds: 0, scaleSeconds: 0, deleteSeconds: 0 });
    try {
      await emu.control.resetRequestCounts();
      const news = inputs({ name: "instant" });
      let t = time.clock.now();
      const created = await clusterProvider.create(news);
      expect(created.outs.status).toBe("running");
      expect(time.clock.now() - t).toBe(0);
      const outs = { ...created.outs, __provider: news.__provider };
      t = time.clock.now();
      const updated = await clusterProvider.update(created.id, outs, { ...news, workers: 3 });
      expect(updated.outs).toMatchObject({ status: "running", workers: 3 });
      expect(time.clock.now() - t).toBe(0);
      t = time.clock.now();
      await clusterProvider.delete(created.id, outs);
      expect(time.clock.now() - t).toBe(0);
      // One status call for the create and one for the delete, made as soon as the POST and the
      // DELETE were answered; none for the update, whose PATCH answer already said `running`.
      expect(await emu.control.requestCounts()).toEqual({
        "POST /v1/clusters": 1,
        "PATCH /v1/clusters/:cluster_id": 1,
        "DELETE /v1/clusters/:cluster_id": 1,
        "GET /v1/clusters/:cluster_id": 2,
        "GET /v1/clusters/:cluster_id/kubeconfig": 1,
      });
    } finally {
      await emu.control.setTimings({ provisionSeconds: 600, scaleSeconds: 120, deleteSeconds: 60 });
    }
  });

  it("clusters waited on together share their polls in virtual time as in the host: one listing a round", async () => {
    await emu.control.resetRequestCounts();
    const names = ["wave-a", "wave-b", "wave-c"];
    const start = time.clock.now();
    const res = await Promise.all(
      names.map((name) =>
        clusterProvider.create(inputs({ name, __urn: `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::${name}` })),
      ),
    );
    expect(res.map((r) => r.outs.status)).toEqual(["running", "running", "running"]);
    expect(time.clock.now() - start).toBeGreaterThanOrEqual(600_000);
    const counts = await emu.control.requestCounts();
    // The production path: the shared poller, on the injected clock, lists for all three.
    expect(counts["GET /v1/clusters"]).toBeGreaterThan(0);
    expect(counts["GET /v1/clusters/:cluster_id"] ?? 0).toBeLessThan(counts["GET /v1/clusters"]);
  });

  it("progress lines list nodes on a widening schedule, not on every poll", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token });
    const summary = await client.createCluster({ name: "progress-economy", control_planes: 3, workers: 3, node_size: "small" });
    await emu.control.resetRequestCounts();
    const lines: string[] = [];
    await waitForCluster({
      client,
      id: summary.id,
      target: "running",
      timeoutMs: 1_800_000,
      clock: time.clock,
      onProgress: (line) => lines.push(line),
    });
    const counts = await emu.control.requestCounts();
    const polls = counts["GET /v1/clusters/:cluster_id"];
    const nodeLists = counts["GET /v1/clusters/:cluster_id/nodes"];
    expect(polls).toBeGreaterThan(30);
    expect(nodeLists).toBeGreaterThanOrEqual(5);
    expect(nodeLists).toBeLessThanOrEqual(20);
    // Every poll that did not see running still printed a line, with a node count.
    expect(lines.length).toBe(polls - 1);
    expect(lines.every((l) => /^provisioning: \d+\/6 nodes ready/.test(l))).toBe(true);
  });

  it("node lists for progress are max(5 s, 30 % of the wait) apart", () => {
    expect(nodeListDue(undefined, 1_000, 0)).toBe(true);
    expect(nodeListDue(1_000, 5_999, 0)).toBe(false);
    expect(nodeListDue(1_000, 6_000, 0)).toBe(true);
    // At 100 s waited the gap is 30 s.
    expect(nodeListDue(75_000, 100_000, 0)).toBe(false);
    expect(nodeListDue(70_000, 100_000, 0)).toBe(true);
  });

  it("the waiter reports the last status when it times out", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token });
    const summary = await client.createCluster({ name: "raw", control_planes: 1, workers: 1, node_size: "small" });
    const err = await rejection(waitForCluster({ client, id: summary.id, target: "running", timeoutMs: 30_000, clock: time.clock }));
    expect(err).toBeInstanceOf(WaitError);
    expect(err).toMatchObject({ reason: "timeout", cluster: { status: "provisioning" } });
    expect(err.message).toBe(`timed out after 30s waiting for cluster ${summary.id} to become running (last status "provisioning")`);
  });
  it("a cancelled wait ends at once, names the cluster and the status it last saw; one cancelled before it starts does not poll", async () => {
    const client = createClient({ endpoint: emu.url, token: emu.token });
    const summary = await client.createCluster({ name: "cancelled", control_planes: 1, workers: 1, node_size: "small" });
    const cancel = new AbortController();
    let lines = 0;
    const wait = waitForCluster({
      client,
      id: summary.id,
      target: "running",
      timeoutMs: 1_800_000,
      clock: time.clock,
      cancelled: cancel.signal,
      onProgress: () => {
        lines += 1;
        if (lines === 2) cancel.abort();
      },
    });
    const err = await rejection(wait);
    expect(err).toBeInstanceOf(WaitError);
    expect(err).toMatchObject({ reason: "cancelled", code: "wait_cancelled", cluster: { status: "provisioning" } });
    expect(err.message).toContain(`the wait for cluster ${summary.id} to become running was cancelled`);
    expect(lines).toBe(2);

    const polls = (await emu.control.requestCounts())["GET /v1/clusters/:cluster_id"];
    const already = await rejection(
      waitForCluster({ client, id: summary.id, target: "gone", timeoutMs: 60_000, clock: time.clock, cancelled: cancel.signal }),
    );
    expect(already).toMatchObject({ reason: "cancelled" });
    expect((await emu.control.requestCounts())["GET /v1/clusters/:cluster_id"]).toBe(polls);
  });
});
