/** read against the real emulator: refresh, drift, out-of-band delete, kubeconfig rotation, adopt. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { diffCluster } from "../../../src/provider/properties/diff";
import { checkCluster } from "../../../src/provider/properties/check";
import { waitForStatus, waitUntilGone } from "../../support/emulator";
import {
  clusterProvider,
  created,
  emulatorForProvider,
  forgetStackConfig,
  inputs,
  rejection,
  showProgress,
  testRuntime,
} from "../../support/provider";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider();
});
afterAll(async () => {
  await emu.close();
});

/** Poll the emulator until the cluster is running again (after an out-of-band change). */
async function settled(id: string) {
  await waitForStatus(emu, id, "running");
}

describe("read", () => {
  it("returns the same state and the identical kubeconfig text when nothing changed", async () => {
    const { id, outs } = await created("steady");
    const r = await clusterProvider.read(id, outs);
    expect(r.id).toBe(id);
    expect(r.props).toMatchObject({ name: "steady", status: "running", workers: 2, nodeSize: "small" });
    expect(r.props?.kubeconfig).toBe(outs.kubeconfig);
    // Nothing to do on the next up.
    expect(diffCluster(r.props!, outs).changes).toBe(false);
  });

  it("a second preview after up shows no changes", async () => {
    const news = checkCluster({}, inputs({ name: "noop" })).inputs;
    const res = await clusterProvider.create(news);
    const again = checkCluster(news, inputs({ name: "noop" })).inputs;
    expect((await clusterProvider.diff(res.id, res.outs, again)).changes).toBe(false);
  });

  it("returns new kubeconfig text after the credentials rotate", async () => {
    const { id, outs } = await created("rotating");
    await emu.control.rotateKubeconfig(id);
    const r = await clusterProvider.read(id, outs);
    expect(r.props?.kubeconfig).not.toBe(outs.kubeconfig);
    expect(r.props?.kubeconfig).toContain("apiVersion");
  });

  it("reports out-of-band scaling and records it as inputs, so up puts the program's value back", async () => {
    const { id, news, outs } = await created("drifting");
    await emu.control.scale(id, 5);
    await settled(id);
    await emu.control.resize(id, "large");
    await settled(id);
    const r = await clusterProvider.read(id, outs);
    expect(r.props).toMatchObject({ workers: 5, nodeSize: "large" });
    expect(r.inputs).toMatchObject({
      name: "drifting",
      workers: 5,
      nodeSize: "large",
      controlPlanes: 1,
      phase: "managed",
      __urn: news.__urn,
    });
    expect(r.inputs).not.toHaveProperty("kubeconfig");
    expect(r.inputs).not.toHaveProperty("status");
    // The program still says 2 workers: the next up updates in place, back to 2.
    const d = diffCluster(r.props!, news);
    expect(d).toMatchObject({ changes: true, replaces: [] });
    expect(d.diffs).toEqual(["workers", "nodeSize"]);
    await emu.control.resetRequestCounts();
    const u = await clusterProvider.update(id, { ...r.props!, __provider: news.__provider }, news);
    expect(u.outs).toMatchObject({ workers: 2, nodeSize: "small", status: "running" });
    expect((await emu.control.requestCounts())["PATCH /v1/clusters/:cluster_id"]).toBe(1);
  });

  it("returns no id when the cluster was deleted outside Pulumi", async () => {
    const { id, outs } = await created("vanishing");
    await emu.control.deleteCluster(id);
    // Still "deleting" for a moment: the cluster exists; once gone, read says so.
    await waitUntilGone(emu, id);
    const r = await clusterProvider.read(id, outs);
    expect(r).toEqual({});
  });

  it("a refresh is told from Cluster.get by the marker, not by the state's fields: a vanished cluster leaves even a bare state", async () => {
    const { id } = await created("bare-state");
    await emu.control.deleteCluster(id);
    await waitUntilGone(emu, id);
    expect(await clusterProvider.read(id, { __provider: "p", __urn: inputs().__urn })).toEqual({});
  });

  it("fills everything, inputs included, for Cluster.get / import (state holds only the provider)", async () => {
    const { id } = await created("adopted", { workers: 3, nodeSize: "medium" });
    const r = await clusterProvider.read(id, { __provider: "p" });
    expect(r.id).toBe(id);
    expect(r.props).toMatchObject({
      name: "adopted",
      status: "running",
      workers: 3,
      nodeSize: "medium",
      controlPlanes: 1,
      kubeconfig: expect.any(String),
    });
    expect(r.inputs).toEqual({ name: "adopted", controlPlanes: 1, workers: 3, nodeSize: "medium", phase: "managed" });
  });

  it("survives transient failures while reading", async () => {
    const { id, outs } = await created("flaky-read");
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id", kind: "status", status: 502, count: 2 });
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id/kubeconfig", kind: "drop", count: 1 });
    const r = await clusterProvider.read(id, outs);
    expect(r.props?.status).toBe("running");
    expect(r.props?.kubeconfig).toBe(outs.kubeconfig);
  });

  it("shows each retry while reading, then what it read; a read without retries shows nothing", async () => {
    const { id, news, outs } = await created("flaky-read-progress");
    const lines: string[] = [];
    showProgress({ report: (urn, line) => void (urn === news.__urn && lines.push(line)) });
    try {
      await clusterProvider.read(id, outs);
      expect(lines).toEqual([]);
      await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id/kubeconfig", kind: "status", status: 502, count: 2 });
      await clusterProvider.read(id, outs);
      expect(lines.filter((l) => /^the service answered 502; attempt \d in \d+(ms|s)$/.test(l))).toHaveLength(2);
      expect(lines.at(-1)).toBe(`read: cluster ${id} is running`);
    } finally {
      showProgress(undefined);
    }
  });

  it("falls back to the config/environment token when the token stored in state was rotated", async () => {
    const { id, outs } = await created("rotated-token");
    // State still holds the explicit token of the last update; it no longer works. CMS_TOKEN does.
    const stale = { ...outs, connection: { endpoint: emu.url, token: "tok-revoked-long-ago" } };
    const r = await clusterProvider.read(id, stale);
    expect(r.props).toMatchObject({ status: "running", connection: stale.connection });
    await clusterProvider.delete(id, stale);
    expect((await emu.control.clusters()).some((c) => c.id === id)).toBe(false);
  });

  it("fails clearly (without the token) when the token is refused", async () => {
    const { id, outs } = await created("refused");
    const token = "tok-read-secret-should-not-appear";
    // No other token configured: nothing to fall back to.
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: {} };
    try {
      const err = await rejection(clusterProvider.read(id, { ...outs, connection: { endpoint: emu.url, token } }));
      expect(err.message).toMatch(new RegExp(`reading cluster ${id} failed: .*(invalid|expired)`));
      expect(err.message).not.toContain(token);
    } finally {
      runtime.settings = previous;
    }
  });

  it("a token rotated in the stack config: refresh and destroy use CMS_TOKEN when the recorded config token is refused", async () => {
    const { id, outs } = await created("config-rotated");
    // The engine configures refresh/destroy with the config of the last up: the old token.
    const config: Record<string, string> = { "cms:endpoint": emu.url, "cms:token": "tok-rotated-away" };
    await clusterProvider.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
    try {
      const r = await clusterProvider.read(id, outs);
      expect(r.props?.status).toBe("running");
      await clusterProvider.delete(id, outs);
      expect((await emu.control.clusters()).some((c) => c.id === id)).toBe(false);
    } finally {
      await forgetStackConfig();
    }
  });

  it("a refused token with nothing to fall back to names the commands that work", async () => {
    const { id, outs } = await created("config-stale");
    const config: Record<string, string> = { "cms:endpoint": emu.url, "cms:token": "tok-stale-config-token" };
    await clusterProvider.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: {} };
    try {
      for (const op of [() => clusterProvider.read(id, outs), () => clusterProvider.delete(id, outs)]) {
        const err = await rejection(op());
        expect(err.message).toMatch(/--run-program/);
        expect(err.message).toMatch(/CMS_TOKEN/);
        expect(err.message).not.toContain("tok-stale-config-token");
      }
    } finally {
      runtime.settings = previous;
      await forgetStackConfig();
    }
  });

  it("a cluster being deleted outside Pulumi leaves the stack", async () => {
    const { id, outs } = await created("console-deleting");
    await emu.control.setTimings({ deleteSeconds: 30 });
    try {
      await emu.control.deleteCluster(id);
      expect(await clusterProvider.read(id, outs)).toEqual({});
    } finally {
      await emu.control.setTimings({ deleteSeconds: 0.2 });
    }
  });
});

describe("Cluster.get (read marked __get, with an empty state)", () => {
  const getState = { __urn: inputs().__urn, __get: true };

  it("reads an existing cluster", async () => {
    const { id } = await created("gettable");
    const r = await clusterProvider.read(id, getState);
    expect(r.props).toMatchObject({ name: "gettable", kubeconfig: expect.any(String) });
  });

  it("fails naming the id when the cluster does not exist", async () => {
    const err = await rejection(clusterProvider.read("cls_0000000000000000", getState));
    // Said once, with what to check: the 404's own "not found" adds nothing to it.
    expect(err.message).toBe(
      "Cluster.get: cluster cls_0000000000000000 does not exist or is not visible to the token in use " +
        "(GET answered 404 not_found): check the id, and that the token's scope covers it",
    );
    // Cluster.get records nothing yet: a refresh is no remedy.
    expect(err.message).not.toMatch(/refresh/);
  });

  it("fails naming the id when the token's scope hides the cluster", async () => {
    const { id } = await created("hidden");
    await emu.control.addToken({
      token: "tok-scoped-elsewhere",
      permissions: ["read"],
      scope: "cluster:cls_00000000000000aa",
      plan: "enterprise",
    });
    const err = await rejection(
      clusterProvider.read(id, { ...getState, connection: { endpoint: emu.url, token: "tok-scoped-elsewhere" } }),
    );
    expect(err.message).toMatch(new RegExp(`^Cluster\\.get: cluster ${id} does not exist or is not visible`));
    expect(err.message).not.toContain("tok-scoped-elsewhere");
  });

  it("fails when the cluster is being deleted", async () => {
    const { id } = await created("get-deleting");
    await emu.control.setTimings({ deleteSeconds: 30 });
    try {
      await emu.control.deleteCluster(id);
      const err = await rejection(clusterProvider.read(id, getState));
      expect(err.message).toBe(`Cluster.get: cluster ${id} is being deleted`);
    } finally {
      await emu.control.setTimings({ deleteSeconds: 0.2 });
    }
  });
});
