/**
 * `--kubernetes-kubeconfig FILE`: clusters as namespaces of a Kubernetes cluster the user runs.
 * The "user's cluster" here is a real kube-apiserver (one emulated cluster of a first emulator,
 * reached with its cluster-admin kubeconfig), as a kind or k3d cluster would be.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src";
import { appManifest, kubectl, kubernetesUnavailable } from "../support/kubernetes";
import { Api, FAST_TIMINGS, clusterBody, start, until } from "../support/emulator";

const SLOW = 120_000;
const skip = kubernetesUnavailable();

describe.skipIf(skip !== undefined)(`clusters as namespaces of an existing cluster${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let host: RunningEmulator;
  let emu: RunningEmulator;
  let api: Api;
  let hostKubeconfig: string;
  let dir: string;

  beforeAll(async () => {
    const h = await start({ kubernetes: {}, provisionSeconds: 0.5 });
    host = h.emu;
    const created = await h.api.post("/v1/clusters", clusterBody({ name: "users-own" }));
    await until(
      () => h.api.get(`/v1/clusters/${created.body.id}`),
      (r) => r.body.status === "running",
      30_000,
    );
    hostKubeconfig = (await h.api.get(`/v1/clusters/${created.body.id}/kubeconfig`)).text;
    dir = mkdtempSync(join(tmpdir(), "cms-existing-"));
    writeFileSync(join(dir, "kubeconfig"), hostKubeconfig);
    emu = await startEmulator({ ...FAST_TIMINGS, kubernetes: { kubeconfig: join(dir, "kubeconfig") } });
    api = new Api(emu.url, emu.token);
  }, SLOW);
  afterAll(async () => {
    await emu?.close();
    await host?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, SLOW);

  async function kubeconfigOfNew(name: string): Promise<{ id: string; kubeconfig: string }> {
    const created = await api.post("/v1/clusters", clusterBody({ name }));
    expect(created.status).toBe(201);
    await until(
      () => api.get(`/v1/clusters/${created.body.id}`),
      (r) => r.body.status === "running",
      30_000,
    );
    const res = await api.get(`/v1/clusters/${created.body.id}/kubeconfig`);
    expect(res.status).toBe(200);
    return { id: created.body.id, kubeconfig: res.text };
  }

  it(
    "each cluster gets a namespace of its own: it applies there, reads namespaces, and cannot read another's",
    async () => {
      const [a, b] = await Promise.all([kubeconfigOfNew("ns-a"), kubeconfigOfNew("ns-b")]);
      const nsA = `cms-${a.id.slice(4)}`;
      expect(a.kubeconfig).toContain(`namespace: ${nsA}`);
      const applied = await kubectl(a.kubeconfig, ["apply", "-f", "-"], appManifest("hello"));
      expect(applied).toMatchObject({ code: 0, stderr: "" });
      expect((await kubectl(hostKubeconfig, ["get", "deployment", "hello", "-n", nsA, "-o", "name"])).stdout.trim()).toBe(
        "deployment.apps/hello",
      );

      expect((await kubectl(b.kubeconfig, ["get", "ns", "-o", "name"])).stdout).toContain(`namespace/${nsA}`);
      const across = await kubectl(b.kubeconfig, ["get", "deployment", "hello", "-n", nsA]);
      expect(across.code).not.toBe(0);
      expect(across.stderr).toContain("Forbidden");
    },
    SLOW,
  );

  it(
    "rotation and deletion revoke the credential",
    async () => {
      const { id, kubeconfig } = await kubeconfigOfNew("ns-revoked");
      expect((await kubectl(kubeconfig, ["get", "pods"])).code).toBe(0);
      await emu.control.rotateKubeconfig(id);
      expect((await kubectl(kubeconfig, ["get", "pods"])).stderr).toMatch(/Unauthorized|must be logged in/);
      const rotated = (await api.get(`/v1/clusters/${id}/kubeconfig`)).text;
      expect((await kubectl(rotated, ["get", "pods"])).code).toBe(0);

      expect((await api.del(`/v1/clusters/${id}`)).status).toBe(204);
      await until(
        () => api.get(`/v1/clusters/${id}`),
        (r) => r.status === 404,
        30_000,
      );
      // Refused outright, not merely forbidden: the service account is gone.
      const after = await until(
        () => kubectl(rotated, ["get", "pods"]),
        (r) => /Unauthorized|must be logged in/.test(r.stderr),
        30_000,
      );
      expect(after.code).not.toBe(0);
    },
    SLOW,
  );

  it("a kubeconfig that authenticates with an exec plugin is refused at start, naming the option", async () => {
    const file = join(dir, "exec-kubeconfig");
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1", "certificate-authority-data": "" } }],
        users: [{ name: "u", user: { exec: { command: "aws" } } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    );
    await expect(startEmulator({ kubernetes: { kubeconfig: file } })).rejects.toThrow(/--kubernetes-kubeconfig .*exec plugin/);
  });
});
