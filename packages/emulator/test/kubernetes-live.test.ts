/**
 * `--kubernetes`: every cluster's kubeconfig reaches a real kube-apiserver of its own. kubectl,
 * with the kubeconfig as the API serves it (its CA verified, its token the only credential),
 * lists namespaces, applies a Deployment and a Service and reads them back; clusters do not see
 * each other; rotation and deletion revoke; nodes appear as Node objects and follow scaling.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../src";
import { appManifest, kubectl, kubernetesUnavailable } from "../../../test/support/kubernetes";
import { alive, descendants } from "../../../test/lifecycle/harness.mjs";
import { CLI } from "../../../test/support/cli";
import { Api, clusterBody, start, until } from "../../../test/support/emulator";

const SLOW = 120_000;
const skip = kubernetesUnavailable();

describe.skipIf(skip !== undefined)(`clusters backed by real API servers${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let emu: RunningEmulator;
  let api: Api;

  beforeAll(async () => {
    ({ emu, api } = await start({ kubernetes: {}, provisionSeconds: 1, scaleSeconds: 1, deleteSeconds: 0.5 }));
  }, SLOW);
  afterAll(() => emu?.close(), SLOW);

  async function runningCluster(name: string, workers = 2): Promise<string> {
    const created = await api.post("/v1/clusters", clusterBody({ name, workers }));
    expect(created.status).toBe(201);
    await until(
      () => api.get(`/v1/clusters/${created.body.id}`),
      (r) => r.body.status === "running",
      30_000,
    );
    return created.body.id;
  }
  const kubeconfigOf = async (id: string): Promise<string> => {
    const res = await api.get(`/v1/clusters/${id}/kubeconfig`);
    expect(res.status).toBe(200);
    return res.text;
  };
  const nodeNames = async (kubeconfig: string): Promise<string[]> => {
    const out = await kubectl(kubeconfig, ["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"]);
    expect(out.stderr).toBe("");
    return out.stdout.split(" ").filter(Boolean).sort();
  };

  it(
    "a running cluster's kubeconfig lists namespaces and applies and reads back a Deployment and a Service",
    async () => {
      const id = await runningCluster("apps");
      const cluster = (await api.get(`/v1/clusters/${id}`)).body;
      const kubeconfig = await kubeconfigOf(id);
      expect(kubeconfig).toContain(`server: ${cluster.endpoint}`);
      expect(cluster.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

      const ns = await kubectl(kubeconfig, ["get", "ns", "-o", "name"]);
      expect(ns).toMatchObject({ code: 0, stderr: "" });
      expect(ns.stdout).toContain("namespace/default");

      const applied = await kubectl(kubeconfig, ["apply", "-f", "-"], appManifest("hello"));
      expect(applied).toMatchObject({ code: 0, stderr: "" });
      expect(applied.stdout).toContain("deployment.apps/hello created");
      expect(applied.stdout).toContain("service/hello created");
      const read = await kubectl(kubeconfig, ["get", "deployment/hello", "service/hello", "-o", "json"]);
      expect(read.code).toBe(0);
      const items = JSON.parse(read.stdout).items;
      expect(items.map((i: any) => `${i.kind}/${i.metadata.name}`)).toEqual(["Deployment/hello", "Service/hello"]);
      expect(items[0].spec.replicas).toBe(2);
      expect(items[1].spec.clusterIP).toMatch(/^10\.96\./);

      // The server version clients read is the release's own, not v0.0.0-master.
      const version = await kubectl(kubeconfig, ["version", "-o", "json"]);
      expect(JSON.parse(version.stdout).serverVersion.gitVersion).toBe("v1.37.2");
    },
    SLOW,
  );

  it(
    "what one cluster's kubeconfig creates, another cluster's kubeconfig cannot see",
    async () => {
      const [a, b] = await Promise.all([runningCluster("iso-a"), runningCluster("iso-b")]);
      const [ka, kb] = await Promise.all([kubeconfigOf(a), kubeconfigOf(b)]);
      expect((await kubectl(ka, ["create", "namespace", "only-in-a"])).code).toBe(0);
      expect((await kubectl(ka, ["apply", "-f", "-"], appManifest("mine"))).code).toBe(0);

      expect((await kubectl(kb, ["get", "ns", "-o", "name"])).stdout).not.toContain("only-in-a");
      const other = await kubectl(kb, ["get", "deployment", "mine"]);
      expect(other.code).not.toBe(0);
      expect(other.stderr).toContain("NotFound");
      // And the other way round: b's own objects are b's.
      expect((await kubectl(kb, ["apply", "-f", "-"], appManifest("mine"))).stdout).toContain("deployment.apps/mine created");
    },
    SLOW,
  );

  it(
    "rotate-kubeconfig: the old credential is refused, the new one works",
    async () => {
      const id = await runningCluster("rotating");
      const before = await kubeconfigOf(id);
      expect((await kubectl(before, ["get", "ns"])).code).toBe(0);

      await emu.control.rotateKubeconfig(id);
      const after = await kubeconfigOf(id);
      expect(after).not.toBe(before);
      const old = await kubectl(before, ["get", "ns"]);
      expect(old.code).not.toBe(0);
      expect(old.stderr).toMatch(/Unauthorized|must be logged in/);
      expect(await kubectl(after, ["get", "ns"])).toMatchObject({ code: 0, stderr: "" });
    },
    SLOW,
  );

  it(
    "nodes appear as Node objects with the API's names, Ready, and follow scaling up and down",
    async () => {
      const id = await runningCluster("scaled", 2);
      const kubeconfig = await kubeconfigOf(id);
      const apiNames = async () =>
        ((await api.get(`/v1/clusters/${id}/nodes`)).body.items as Array<{ name: string }>).map((n) => n.name).sort();
      expect(await apiNames()).toEqual(["scaled-cp-1", "scaled-worker-1", "scaled-worker-2"]);
      await until(
        () => nodeNames(kubeconfig),
        (names) => names.length === 3,
        15_000,
      );
      expect(await nodeNames(kubeconfig)).toEqual(await apiNames());
      const ready = await kubectl(kubeconfig, [
        "get",
        "nodes",
        "-o",
        'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{end}',
      ]);
      expect(ready.stdout.trim().split(" ")).toEqual(["True", "True", "True"]);

      expect((await api.patch(`/v1/clusters/${id}`, { workers: 3 })).status).toBe(200);
      await until(
        () => api.get(`/v1/clusters/${id}`),
        (r) => r.body.status === "running",
        30_000,
      );
      const grown = await until(
        () => nodeNames(kubeconfig),
        (names) => names.length === 4,
        15_000,
      );
      expect(grown).toEqual(await apiNames());

      expect((await api.patch(`/v1/clusters/${id}`, { workers: 1 })).status).toBe(200);
      await until(
        () => api.get(`/v1/clusters/${id}`),
        (r) => r.body.status === "running",
        30_000,
      );
      const shrunk = await until(
        () => nodeNames(kubeconfig),
        (names) => names.length === 2,
        15_000,
      );
      expect(shrunk).toEqual(await apiNames());
    },
    SLOW,
  );

  it(
    "deleting the cluster makes its kubeconfig stop working",
    async () => {
      const id = await runningCluster("doomed");
      const kubeconfig = await kubeconfigOf(id);
      expect((await kubectl(kubeconfig, ["get", "ns"])).code).toBe(0);
      expect((await api.del(`/v1/clusters/${id}`)).status).toBe(204);
      await until(
        () => api.get(`/v1/clusters/${id}`),
        (r) => r.status === 404,
        30_000,
      );
      const after = await until(
        () => kubectl(kubeconfig, ["get", "ns"]),
        (r) => r.code !== 0,
        30_000,
      );
      expect(after.stderr).toMatch(/refused|EOF|reset/);
    },
    SLOW,
  );
});

describe.skipIf(skip !== undefined)(
  `clusters backed by real API servers, across a restart with --state${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "cms-k8s-state-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it(
      "the endpoint, the kubeconfig handed out before and what was stored through it survive a restart",
      async () => {
        const statePath = join(dir, "state.json");
        const first = await start({ kubernetes: {}, statePath, provisionSeconds: 0.5 });
        const created = await first.api.post("/v1/clusters", clusterBody({ name: "kept" }));
        await until(
          () => first.api.get(`/v1/clusters/${created.body.id}`),
          (r) => r.body.status === "running",
          30_000,
        );
        const kubeconfig = (await first.api.get(`/v1/clusters/${created.body.id}/kubeconfig`)).text;
        expect((await kubectl(kubeconfig, ["create", "configmap", "kept", "--from-literal=k=v"])).code).toBe(0);
        const endpoint = (await first.api.get(`/v1/clusters/${created.body.id}`)).body.endpoint;
        await first.emu.close();
        expect((await kubectl(kubeconfig, ["get", "ns"])).code).not.toBe(0); // stopped with the emulator

        const second = await start({ kubernetes: {}, statePath, token: first.emu.token });
        try {
          expect((await second.api.get(`/v1/clusters/${created.body.id}`)).body.endpoint).toBe(endpoint);
          expect((await second.api.get(`/v1/clusters/${created.body.id}/kubeconfig`)).text).toBe(kubeconfig);
          const read = await kubectl(kubeconfig, ["get", "configmap", "kept", "-o", "jsonpath={.data.k}"]);
          expect(read).toMatchObject({ code: 0, stdout: "v" });
        } finally {
          await second.emu.close();
        }
      },
      SLOW,
    );
  },
);

describe.skipIf(skip !== undefined)(`the API servers of a killed emulator${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it(
    "stop when the emulator is killed with SIGKILL (it cannot stop them itself)",
    async () => {
      const cli = CLI;
      const child = spawn(process.execPath, [cli, "--port", "0", "--kubernetes", "--provision-seconds", "0.2", "--token", "cms_killed"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      try {
        let out = "";
        child.stdout?.on("data", (d) => (out += d));
        const url = await until(
          async () => /listening on (\S+)/.exec(out)?.[1],
          (u) => u !== undefined,
          30_000,
        );
        const api = new Api(url as string, "cms_killed");
        const created = await api.post("/v1/clusters", clusterBody({ name: "orphan" }));
        expect((await api.get(`/v1/clusters/${created.body.id}/kubeconfig`)).status).toBe(200);
        const tree = descendants(child.pid as number);
        const programs = tree.map((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0].split("/").at(-1)).sort();
        expect(programs.filter((p) => p === "kube-apiserver" || p === "etcd")).toEqual(["etcd", "kube-apiserver"]);

        child.kill("SIGKILL");
        await until(
          async () => tree.filter(alive),
          (left) => left.length === 0,
          30_000,
        );
      } finally {
        child.kill("SIGKILL");
      }
    },
    SLOW,
  );
});
