/** update and delete against the real emulator. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { ClusterInitError } from "../../../src/provider/errors";
import { clusterProvider, created, emulatorForProvider, inputs, rejection, showProgress } from "../../support/provider";
import { eventually } from "../../support/eventually.mjs";
import { holdingLines } from "../../../src/provider/progress/report";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider();
});
afterAll(async () => {
  await emu.close();
});
afterEach(async () => {
  showProgress(undefined);
  await emu.control.clearFaults();
});

const exists = async (id: string) => (await emu.control.clusters()).some((c) => c.id === id);

describe("update", () => {
  it("sends one PATCH with just the changed field and waits for running", async () => {
    const { id, news, outs } = await created("grow");
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.update(id, outs, { ...news, workers: 4 });
    expect(res.outs).toMatchObject({ workers: 4, nodeSize: "small", status: "running", nodeCount: 5 });
    expect(res.outs.kubeconfig).toBe(outs.kubeconfig);
    const counts = await emu.control.requestCounts();
    expect(counts["PATCH /v1/clusters/:cluster_id"]).toBe(1);
    expect(counts["POST /v1/clusters"]).toBeUndefined();
    // A scale does not change the credentials: the kubeconfig in state is kept, not re-read.
    expect(counts["GET /v1/clusters/:cluster_id/kubeconfig"]).toBeUndefined();
  });

  it("reads the kubeconfig when state has none yet (a create that failed before reading it)", async () => {
    const { id, news, outs } = await created("no-kubeconfig");
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.update(id, { ...outs, kubeconfig: undefined }, { ...news, workers: 2 });
    expect(res.outs.kubeconfig).toBe(outs.kubeconfig);
    expect((await emu.control.requestCounts())["GET /v1/clusters/:cluster_id/kubeconfig"]).toBe(1);
  });

  it("changes the node size in place", async () => {
    const { id, news, outs } = await created("resize");
    const res = await clusterProvider.update(id, outs, { ...news, nodeSize: "xlarge" });
    expect(res.outs).toMatchObject({ nodeSize: "xlarge", status: "running" });
  });

  it("waits while the cluster is busy (409) and then applies the change", async () => {
    const { id, news, outs } = await created("busy");
    await emu.control.setTimings({ scaleSeconds: 1.5 });
    try {
      await emu.control.scale(id, 3); // out-of-band: now "scaling" for 1.5 s
      await emu.control.resetRequestCounts();
      const res = await clusterProvider.update(id, outs, { ...news, workers: 6 });
      expect(res.outs).toMatchObject({ workers: 6, status: "running" });
      expect((await emu.control.requestCounts())["PATCH /v1/clusters/:cluster_id"]).toBe(2);
    } finally {
      await emu.control.setTimings({ scaleSeconds: 0.2 });
    }
  }, 15_000);

  it("only records the new connection/timeouts when nothing else changed (no PATCH)", async () => {
    const { id, news, outs } = await created("hidden");
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.update(id, outs, { ...news, __timeouts: { update: "1h" } });
    expect(res.outs).toMatchObject({ status: "running", __timeouts: { update: "1h" } });
    expect((await emu.control.requestCounts())["PATCH /v1/clusters/:cluster_id"]).toBeUndefined();
  });

  it("keeps the cluster in state when the update ends in error", async () => {
    const { id, news, outs } = await created("fragile");
    await emu.control.failNext("update");
    const err = await rejection(clusterProvider.update(id, outs, { ...news, workers: 3 }));
    expect(err).toBeInstanceOf(ClusterInitError);
    expect(err.id).toBe(id);
    expect(err.properties).toMatchObject({ status: "error", __provider: news.__provider, kubeconfig: outs.kubeconfig });
    expect(err.message).toMatch(/status "error".*replace it/);
    // Next up on that cluster: reported clearly again, still kept.
    const again = await rejection(clusterProvider.update(id, err.properties as Record<string, unknown>, { ...news, workers: 3 }));
    expect(again).toBeInstanceOf(ClusterInitError);
    expect(again.message).toMatch(/status "error"/);
    expect(await exists(id)).toBe(true);
  });

  it("refuses clearly when the API rejects the change, keeping the old state", async () => {
    const { id, news, outs } = await created("refuse");
    const err = await rejection(clusterProvider.update(id, outs, { ...news, workers: 0 }));
    expect(err).not.toBeInstanceOf(ClusterInitError);
    expect(err.message).toMatch(new RegExp(`updating cluster ${id} failed: .*workers`));
  });

  it("of a cluster deleted in the console names the one command that records it and creates it again", async () => {
    const { id, news, outs } = await created("console-deleted");
    await emu.control.deleteCluster(id);
    await eventually(async () => !(await exists(id)), { timeoutMs: 10_000, what: "the console delete" });
    const err = await rejection(clusterProvider.update(id, outs, { ...news, workers: 3 }));
    expect(err.message).toBe(
      `cluster ${id} no longer exists (deleted outside Pulumi?): \`pulumi up --refresh\` records that and creates it again`,
    );
  });

  it("survives a 5xx burst on PATCH", async () => {
    const { id, news, outs } = await created("patchy");
    await emu.control.injectFault({ method: "PATCH", kind: "status", status: 500, count: 2 });
    const res = await clusterProvider.update(id, outs, { ...news, workers: 3 });
    expect(res.outs).toMatchObject({ workers: 3, status: "running" });
  });
});

describe("delete", () => {
  it("deletes and waits until the cluster is gone", async () => {
    const { id, outs } = await created("doomed");
    await emu.control.resetRequestCounts();
    await clusterProvider.delete(id, outs);
    expect(await exists(id)).toBe(false);
    const counts = await emu.control.requestCounts();
    expect(counts["DELETE /v1/clusters/:cluster_id"]).toBe(1);
    expect(counts["GET /v1/clusters/:cluster_id"]).toBeGreaterThanOrEqual(1);
  });

  it("shows each retry of the DELETE in the progress line, then the outcome", async () => {
    const { id, news, outs } = await created("doomed-flaky");
    const lines: string[] = [];
    showProgress({ report: (urn, line) => void (urn === news.__urn && lines.push(line)) });
    await emu.control.injectFault({ method: "DELETE", path: "/v1/clusters/:cluster_id", kind: "status", status: 503, count: 1 });
    await clusterProvider.delete(id, outs);
    expect(lines).toContainEqual(expect.stringMatching(/^the service answered 503; attempt 2 in \d+(ms|s)$/));
    expect(lines.at(-1)).toBe(`deleted: cluster ${id} is gone`);
  });

  it("names the cluster it waits for, not the CLI's own words (`deleting (9s)`) again", async () => {
    const { id, news, outs } = await created("doomed-slow");
    const lines: string[] = [];
    showProgress({ report: (urn, line) => void (urn === news.__urn && lines.push(line)) });
    await clusterProvider.delete(id, outs);
    expect(lines).toContain(`waiting for cluster ${id} to be gone`);
    expect(lines.filter((l) => /^deleting\b|\(\d+s\)/.test(l))).toEqual([]);
  });

  it('in a replacement, replaces the new cluster\'s "ready" line at once with its own, naming the original', async () => {
    // The engine's sink: lines held a tenth of a second, and the CLI keeps a resource's last line
    // until the next comes, into the delete of the original that follows the replacement's create.
    const urn = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::replaced";
    const sent: Array<{ at: number; line: string }> = [];
    showProgress(holdingLines(async (u, line) => void (u === urn && sent.push({ at: Date.now(), line }))));
    const original = await created("replaced-original", { __urn: urn });
    // The engine's check of the resource in the state, then the replacement's create: its last
    // line says what the row shows next.
    await clusterProvider.check(original.news, original.news);
    const replacement = await created("replaced-new", { __urn: urn });
    expect(sent.at(-1)?.line).toBe(`running: cluster ${replacement.id} ready; the original is deleted next`);
    await emu.control.injectFault({ method: "DELETE", path: "/v1/clusters/:cluster_id", kind: "latency", latencyMs: 2_000, count: 1 });
    const startedAt = Date.now();
    const before = sent.length;
    await clusterProvider.delete(original.id, original.outs);
    const own = sent.slice(before);
    expect(own[0]?.line).toBe(`waiting for cluster ${original.id} to be gone`);
    // Before the DELETE is answered: the original's row never shows the replacement's line for long.
    expect(own[0].at - startedAt).toBeLessThan(1_000);
    expect(own.at(-1)?.line).toBe(`deleted: cluster ${original.id} is gone`);
  });

  it("treats an already deleted cluster as deleted", async () => {
    const { id, outs } = await created("twice");
    await clusterProvider.delete(id, outs);
    await expect(clusterProvider.delete(id, outs)).resolves.toBeUndefined();
  });

  it("waits for a busy cluster, then deletes it", async () => {
    const { id, outs } = await created("busy-delete");
    await emu.control.scale(id, 4);
    await clusterProvider.delete(id, outs);
    expect(await exists(id)).toBe(false);
  });

  it("deletes a cluster in error (a failed create)", async () => {
    await emu.control.failNext("create");
    const err = await rejection(clusterProvider.create(inputs({ name: "errored" })));
    await clusterProvider.delete(String(err.id), err.properties as Record<string, unknown>);
    expect(await exists(String(err.id))).toBe(false);
  });

  it("survives dropped connections and a 429 while deleting", async () => {
    const { id, outs } = await created("rough-delete");
    await emu.control.injectFault({ method: "DELETE", kind: "drop", count: 1 });
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id", kind: "rate_limit", count: 1, retryAfterSeconds: 1 });
    await clusterProvider.delete(id, outs);
    expect(await exists(id)).toBe(false);
  });

  it("times out per customTimeouts.delete with a clear message", async () => {
    const { id, outs } = await created("slow-delete");
    await emu.control.setTimings({ deleteSeconds: 5 });
    try {
      const err = await rejection(clusterProvider.delete(id, { ...outs, __timeouts: { delete: "1s" } }));
      expect(err.message).toMatch(
        new RegExp(`deleting cluster ${id} failed: timed out after 1s .* be deleted \\(last status "deleting"\\)`),
      );
    } finally {
      await emu.control.setTimings({ deleteSeconds: 0.2 });
    }
  }, 15_000);
});
