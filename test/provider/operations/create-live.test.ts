/** create against the real emulator: happy path, API-call floor, faults, failures, no orphans. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { emulator } from "../../support/client";
import { ClusterInitError } from "../../../src/provider/errors";
import {
  clusterProvider,
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
afterEach(async () => {
  showProgress(undefined);
  await emu.control.clearFaults();
  await emu.control.setTimings({ provisionSeconds: 0.3 });
});

describe("create", () => {
  it("creates, waits for running and returns every output with the kubeconfig", async () => {
    // A service that is done when it answers: the wait's first poll, made at once, sees it.
    await emu.control.setTimings({ provisionSeconds: 0 });
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.create(inputs({ name: "alpha", workers: 3, nodeSize: "medium" }));
    expect(res.id).toMatch(/^cls_[0-9a-f]{16}$/);
    expect(res.outs).toMatchObject({
      name: "alpha",
      status: "running",
      phase: "managed",
      controlPlanes: 1,
      workers: 3,
      nodeSize: "medium",
      nodeCount: 4,
      endpoint: expect.stringMatching(/^https:\/\//),
      kubernetesVersion: expect.stringMatching(/^v\d+\.\d+\.\d+$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      kubeconfig: expect.stringContaining("current-context"),
      __urn: inputs().__urn,
    });
    expect(Object.values(res.outs)).not.toContain(undefined);
    // The floor: POST, one GET that sees running, the kubeconfig. No node listing without a viewer.
    expect(await emu.control.requestCounts()).toEqual({
      "POST /v1/clusters": 1,
      "GET /v1/clusters/:cluster_id": 1,
      "GET /v1/clusters/:cluster_id/kubeconfig": 1,
    });
    const [cluster] = (await emu.control.clusters()).filter((c) => c.id === res.id);
    expect(cluster.status).toBe("running");
  });

  it("reports progress with nodes ready while waiting", async () => {
    const lines: Array<[string, string]> = [];
    showProgress({ report: (urn, line) => void lines.push([urn, line]) });
    // Polls at once (provisioning, nodes listed) and at 1 s (running).
    await emu.control.setTimings({ provisionSeconds: 0.5 });
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.create(inputs({ name: "progress" }));
    expect(res.outs.status).toBe("running");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every(([urn]) => urn === inputs().__urn)).toBe(true);
    expect(lines.map(([, l]) => l)).toContainEqual(expect.stringMatching(/^provisioning: \d+\/3 nodes ready$/));
    // One node list per poll that did not see running, nothing more.
    const counts = await emu.control.requestCounts();
    expect(counts["GET /v1/clusters/:cluster_id/nodes"]).toBe(counts["GET /v1/clusters/:cluster_id"] - 1);
  });

  it("uses an explicit connection over the environment", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: { CMS_ENDPOINT: "http://127.0.0.1:9", CMS_TOKEN: "wrong" } };
    try {
      const res = await clusterProvider.create(inputs({ name: "explicit", connection: { endpoint: emu.url, token: emu.token } }));
      expect(res.outs.status).toBe("running");
      // The connection travels to the outputs so read and delete can use it (the engine keeps the token secret).
      expect(res.outs.connection).toEqual({ endpoint: emu.url, token: emu.token });
    } finally {
      runtime.settings = previous;
    }
  });

  it("outlasts a burst of 5xx answers, dropped connections and a 429 storm", async () => {
    await emu.control.injectFault({ method: "POST", path: "/v1/clusters", kind: "status", status: 503, count: 2 });
    await emu.control.injectFault({ method: "GET", path: "/v1/clusters/:cluster_id", kind: "drop", count: 2 });
    await emu.control.injectFault({
      method: "GET",
      path: "/v1/clusters/:cluster_id/kubeconfig",
      kind: "rate_limit",
      count: 2,
      retryAfterSeconds: 1,
    });
    const before = (await emu.control.clusters()).length;
    const res = await clusterProvider.create(inputs({ name: "faulty" }));
    expect(res.outs.status).toBe("running");
    expect(res.outs.kubeconfig).toContain("apiVersion");
    // Exactly one new cluster: retries never duplicate it.
    const after = await emu.control.clusters();
    expect(after.length).toBe(before + 1);
    expect(after.filter((c) => c.name === "faulty")).toHaveLength(1);
  });

  it("creates exactly one cluster when the POST's reply is lost", async () => {
    await emu.control.injectFault({ method: "POST", path: "/v1/clusters", kind: "drop", count: 1 });
    const res = await clusterProvider.create(inputs({ name: "lost-reply" }));
    expect(res.outs.status).toBe("running");
    expect((await emu.control.clusters()).filter((c) => c.name === "lost-reply")).toHaveLength(1);
  });

  it("fails at once, naming the header, when the service asks to wait past the create timeout", async () => {
    // An emulator of its own: the process-wide limiter keeps the service's hour for its endpoint.
    const other = await emulator();
    try {
      await other.control.injectFault({ method: "POST", path: "/v1/clusters", kind: "rate_limit", count: 1, retryAfterSeconds: 3600 });
      const started = Date.now();
      const connection = { endpoint: other.url, token: other.token };
      const err = await rejection(clusterProvider.create(inputs({ name: "told-to-wait", connection, __timeouts: { create: "2m" } })));
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(err.message).toMatch(/Retry-After: 3600 s exceeds the remaining .* of the create timeout/);
      expect(await other.control.clusters()).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it("keeps a cluster that ends in error: partial failure with id and properties", async () => {
    await emu.control.failNext("create");
    const err = await rejection(clusterProvider.create(inputs({ name: "doomed" })));
    expect(err).toBeInstanceOf(ClusterInitError);
    expect(err.id).toMatch(/^cls_/);
    expect(err.properties).toMatchObject({ name: "doomed", status: "error", __provider: inputs().__provider, __urn: inputs().__urn });
    expect(err.reasons).toEqual([expect.stringMatching(/status "error"/)]);
    expect(err.message).toMatch(/kept in the stack/);
    // The cluster still exists, and state will know it: no orphan.
    const survivors = (await emu.control.clusters()).filter((c) => c.id === err.id);
    expect(survivors).toHaveLength(1);
    expect(survivors[0].status).toBe("error");
  });

  it("keeps a cluster whose wait times out, and the next update continues from it", async () => {
    await emu.control.setTimings({ provisionSeconds: 4 });
    const news = inputs({ name: "slow", __timeouts: { create: "1500ms" } });
    const err = await rejection(clusterProvider.create(news));
    expect(err).toBeInstanceOf(ClusterInitError);
    expect(err.message).toMatch(/timed out after 2s waiting for cluster cls_\w+ to become running \(last status "provisioning"\)/);
    expect(err.properties).toMatchObject({ status: "provisioning", workers: 2 });
    // Next `up`: the engine calls update on a resource with init errors; it waits and succeeds.
    const res = await clusterProvider.update(String(err.id), err.properties as Record<string, unknown>, news);
    expect(res.outs).toMatchObject({ status: "running", kubeconfig: expect.stringContaining("apiVersion") });
  }, 20_000);

  it("fails before creating anything when the API refuses the request", async () => {
    const before = (await emu.control.clusters()).length;
    const err = await rejection(clusterProvider.create(inputs({ name: "bad_name!" })));
    expect(err).not.toBeInstanceOf(ClusterInitError);
    expect(err.message).toMatch(/creating cluster "bad_name!" failed: .*name/);
    expect((await emu.control.clusters()).length).toBe(before);
  });

  it("never puts the token in an error message", async () => {
    const token = "tok-THIS-MUST-NOT-LEAK-0001";
    const err = await rejection(clusterProvider.create(inputs({ connection: { endpoint: emu.url, token } })));
    expect(err.message).toMatch(/invalid or expired|unauthorized/i);
    expect(JSON.stringify({ m: err.message, s: err.stack, ...err })).not.toContain(token);
  });

  it("says how to configure the connection when none is set", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: {} };
    try {
      const err = await rejection(clusterProvider.create(inputs()));
      expect(err.message).toMatch(/pulumi config set cms:endpoint/);
    } finally {
      runtime.settings = previous;
    }
  });

  it("takes the connection from the stack config given to configure", async () => {
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { env: {} };
    try {
      const config: Record<string, string> = { "cms:endpoint": emu.url, "cms:token": emu.token };
      await clusterProvider.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] } });
      const res = await clusterProvider.create(inputs({ name: "from-config" }));
      expect(res.outs.status).toBe("running");
      expect(res.outs).not.toHaveProperty("connection");
    } finally {
      await forgetStackConfig();
      runtime.settings = previous;
    }
  });
});
