/**
 * `--kubernetes`: every cluster's kubeconfig reaches a real kube-apiserver of its own, and the
 * cluster runs workloads. kubectl, with the kubeconfig as the API serves it (its CA verified, its
 * token the only credential), lists namespaces, rolls out a Deployment whose Service gets the
 * pods as endpoints, runs a Job to completion; requests are placed against the node size's
 * capacity; clusters do not see each other; rotation and deletion revoke; nodes appear as Node
 * objects and follow scaling, and their pods follow them; the cluster's version, its nodes' and
 * its API server's agree; no process of a cluster outlives it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src";
import { appManifest, kubectl, kubernetesUnavailable } from "../support/kubernetes";
import { alive, descendants } from "../support/process-tree.mjs";
import { CLI } from "../support/cli";
import { Api, clusterBody, start, until } from "../support/emulator";

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
  /** Phase and node of every pod with label app=`app`. */
  const podsOf = async (kubeconfig: string, app: string): Promise<Array<{ phase: string; node: string; ip: string }>> => {
    const out = await kubectl(kubeconfig, ["get", "pods", "-l", `app=${app}`, "-o", "json"]);
    expect(out.stderr).toBe("");
    return JSON.parse(out.stdout).items.map((p: any) => ({ phase: p.status.phase, node: p.spec.nodeName ?? "", ip: p.status.podIP ?? "" }));
  };
  /** Processes under this one (the emulator runs in it) working for cluster `id`. */
  const processesOf = (id: string): string[] =>
    descendants(process.pid)
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        } catch {
          return [];
        }
      })
      .filter((argv) => argv[0] !== "sh" && argv.some((a) => a.includes(`/${id}/`)))
      .map((argv) => argv[0].split("/").at(-1) as string)
      .sort();
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
    "a Deployment rolls out: its pods run on the workers with addresses of their node's range, and the Service's endpoints are those pods",
    async () => {
      const id = await runningCluster("rollout");
      const kubeconfig = await kubeconfigOf(id);
      expect((await kubectl(kubeconfig, ["apply", "-f", "-"], appManifest("web"))).code).toBe(0);
      const rollout = await kubectl(kubeconfig, ["rollout", "status", "deployment/web", "--timeout=60s"]);
      expect(rollout).toMatchObject({ code: 0, stdout: expect.stringContaining('deployment "web" successfully rolled out') });
      const pods = await podsOf(kubeconfig, "web");
      expect(pods.map((p) => p.phase)).toEqual(["Running", "Running"]);
      for (const pod of pods) expect(pod.node).toMatch(/^rollout-worker-\d+$/);
      expect(new Set(pods.map((p) => p.ip)).size).toBe(2);
      const endpoints = await until(
        async () =>
          (
            await kubectl(kubeconfig, [
              "get",
              "endpointslices",
              "-l",
              "kubernetes.io/service-name=web",
              "-o",
              "jsonpath={.items[*].endpoints[*].addresses[0]}",
            ])
          ).stdout
            .split(" ")
            .filter(Boolean)
            .sort(),
        (ips) => ips.length === 2,
        30_000,
      );
      expect(endpoints).toEqual(pods.map((p) => p.ip).sort());

      const job = await kubectl(kubeconfig, ["create", "job", "once", "--image=busybox:1.36", "--", "true"]);
      expect(job.code).toBe(0);
      expect(await kubectl(kubeconfig, ["wait", "--for=condition=complete", "job/once", "--timeout=60s"])).toMatchObject({ code: 0 });
    },
    SLOW,
  );

  it(
    "requests are placed against the node size's capacity: a replica that does not fit stays Pending until a worker joins",
    async () => {
      // small: 2 CPUs a node. Three replicas of 800m: two fit on one worker, the third waits.
      const created = await api.post("/v1/clusters", clusterBody({ name: "tight", workers: 1, node_size: "small" }));
      await until(
        () => api.get(`/v1/clusters/${created.body.id}`),
        (r) => r.body.status === "running",
        30_000,
      );
      const id = created.body.id;
      const kubeconfig = await kubeconfigOf(id);
      const manifest = JSON.parse(appManifest("heavy"));
      manifest.items[0].spec.replicas = 3;
      manifest.items[0].spec.template.spec.containers[0].resources = { requests: { cpu: "800m", memory: "64Mi" } };
      expect((await kubectl(kubeconfig, ["apply", "-f", "-"], JSON.stringify(manifest))).code).toBe(0);
      const phases = (pods: Array<{ phase: string }>) => pods.map((p) => p.phase).sort();
      await until(
        () => podsOf(kubeconfig, "heavy"),
        (pods) => phases(pods).join() === "Pending,Running,Running",
        60_000,
      );
      const events = await kubectl(kubeconfig, [
        "get",
        "events",
        "--field-selector",
        "reason=FailedScheduling",
        "-o",
        "jsonpath={.items[*].message}",
      ]);
      expect(events.stdout).toContain("Insufficient cpu");

      expect((await api.patch(`/v1/clusters/${id}`, { workers: 2 })).status).toBe(200);
      const after = await until(
        () => podsOf(kubeconfig, "heavy"),
        (pods) => phases(pods).join() === "Running,Running,Running",
        60_000,
      );
      expect(after.map((p) => p.node)).toContain("tight-worker-2");
    },
    SLOW,
  );

  it(
    "the cluster's kubernetes_version, its nodes', its Node objects' and its API server's agree; an upgrade to a version it cannot serve is refused",
    async () => {
      const id = await runningCluster("versions", 1);
      const cluster = (await api.get(`/v1/clusters/${id}`)).body;
      const kubeconfig = await kubeconfigOf(id);
      const server = JSON.parse((await kubectl(kubeconfig, ["version", "-o", "json"])).stdout).serverVersion.gitVersion;
      expect(cluster.kubernetes_version).toBe(server);
      const nodes = (await api.get(`/v1/clusters/${id}/nodes`)).body.items as Array<{ kubernetes_version: string }>;
      expect(nodes.map((n) => n.kubernetes_version)).toEqual([server, server]);
      const kubelets = await until(
        async () => (await kubectl(kubeconfig, ["get", "nodes", "-o", "jsonpath={.items[*].status.nodeInfo.kubeletVersion}"])).stdout,
        (out) => out.split(" ").length === 2,
        15_000,
      );
      expect(kubelets).toBe(`${server} ${server}`);
      await expect(emu.control.upgrade(id, "v1.99.0")).rejects.toThrow(`--kubernetes serves ${server} only`);
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
    "a worker removed by scaling down takes its pods with it, and they come back on the workers that remain",
    async () => {
      const id = await runningCluster("shrinking", 2);
      const kubeconfig = await kubeconfigOf(id);
      const manifest = JSON.parse(appManifest("moved"));
      manifest.items[0].spec.replicas = 4;
      expect((await kubectl(kubeconfig, ["apply", "-f", "-"], JSON.stringify(manifest))).code).toBe(0);
      const spread = await until(
        () => podsOf(kubeconfig, "moved"),
        (pods) => pods.length === 4 && pods.every((p) => p.phase === "Running"),
        60_000,
      );
      expect(new Set(spread.map((p) => p.node))).toEqual(new Set(["shrinking-worker-1", "shrinking-worker-2"]));

      expect((await api.patch(`/v1/clusters/${id}`, { workers: 1 })).status).toBe(200);
      const moved = await until(
        () => podsOf(kubeconfig, "moved"),
        (pods) => pods.length === 4 && pods.every((p) => p.phase === "Running" && p.node === "shrinking-worker-1"),
        60_000,
      );
      expect(moved).toHaveLength(4);
    },
    SLOW,
  );

  it(
    "deleting the cluster makes its kubeconfig stop working",
    async () => {
      const id = await runningCluster("doomed");
      const kubeconfig = await kubeconfigOf(id);
      expect((await kubectl(kubeconfig, ["get", "ns"])).code).toBe(0);
      expect(processesOf(id)).toEqual(["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"]);
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
      await until(
        async () => processesOf(id),
        (left) => left.length === 0,
        30_000,
      );
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
        const programs = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"];
        const running = () => {
          const tree = descendants(child.pid as number);
          const names = tree.map((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0].split("/").at(-1) as string;
            } catch {
              return "";
            }
          });
          return { tree, programs: names.filter((n) => programs.includes(n)).sort() };
        };
        const { tree } = await until(
          async () => running(),
          (r) => r.programs.join() === programs.join(),
          30_000,
        );

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
