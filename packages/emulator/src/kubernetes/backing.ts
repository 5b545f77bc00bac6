/**
 * `--kubernetes`: clusters whose kubeconfigs reach a real Kubernetes API server.
 *
 * - A kubeconfig's credential is a service account token (TokenRequest API) bound to
 *   cluster-admin, or to `admin` of the cluster's namespace ({@link Placement.scope}).
 *   Rotation creates the next account and deletes the previous one, whose tokens the API server
 *   then refuses. A kubeconfig is handed out only once its API server is ready.
 * - The emulated nodes appear as Node objects with the API's node names and their node size's
 *   capacity, Ready when the node is `ready`; they follow scaling, resizing, upgrades and
 *   deletion. A node that is not `ready` takes no new pods; a `draining` one has its pods
 *   evicted; a node that is gone takes its pods with it. Where its API server runs workloads
 *   (workloads.ts), the controllers move them to the nodes that remain.
 * - A cluster's `kubernetes_version`, and its nodes', are the version its API server serves.
 * - A cluster that is gone (deleted, reset) has its API server stopped and its data dropped.
 *
 * The emulated lifecycle stays what it is (timestamps, applied when read, see model/lifecycle.ts); a
 * timer here reads each backed cluster to bring its Kubernetes side along.
 */
import type { ClusterRecord, KubeconfigCredential, NodeRecord } from "../model/records";
import { touch } from "../model/records";
import type { ClusterBacking, EmulatorState } from "../model/state";
import { type KubeConnection, kubeCall, kubeRequest } from "./kube-api";
import type { ClusterPlacement, Placement } from "./placement";
import { waitUntil } from "./processes";

/** How often backed clusters are read to bring their Node objects along. */
const SYNC_INTERVAL_MS = 250;
/** Ten years: the credential lives until rotation or deletion, like the emulated one. */
const TOKEN_SECONDS = 10 * 365 * 24 * 3600;
/** Namespace of the service accounts of `cluster`-scoped placements. */
const ACCOUNTS_NAMESPACE = "kube-system";
/** Node statuses in which a node is registered with the API server (a kubelet has joined). */
const REGISTERED = new Set(["joining", "ready", "draining", "not_ready", "deleting"]);
/** Node statuses in which a node takes no new pods (cordoned). */
const CORDONED = new Set(["draining", "deleting"]);

/**
 * What a node of each size offers pods (the emulator's choice: the spec gives sizes no figures;
 * docs/kubernetes.md of the emulator lists them). The scheduler places pods against these.
 */
export const NODE_CAPACITY: Record<NodeRecord["node_size"], { cpu: string; memory: string }> = {
  small: { cpu: "2", memory: "4Gi" },
  medium: { cpu: "4", memory: "8Gi" },
  large: { cpu: "8", memory: "16Gi" },
  xlarge: { cpu: "16", memory: "32Gi" },
};
/** Pods per node, as a kubelet's default `maxPods`. */
const MAX_PODS = "110";

interface Backed {
  cluster: ClusterRecord;
  placement: ClusterPlacement;
  /** The admin connection, once the credential of the kubeconfig has been issued. */
  ready: Promise<KubeConnection>;
  /** Node name → what was last applied of it. */
  applied?: Map<string, string>;
  syncing: boolean;
}

export class KubernetesBacking implements ClusterBacking {
  private readonly backed = new Map<string, Backed>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly placement: Placement,
    private readonly state: EmulatorState,
    private readonly log: (message: string) => void,
    private readonly cleanup: () => void = () => {},
  ) {
    this.timer = setInterval(() => this.tick(), SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Gives a new (or, at start, restored) cluster its Kubernetes API; sets its endpoint. A new
   * cluster is attached before it is written, so that its record holds the endpoint it is answered with.
   */
  async attach(c: ClusterRecord): Promise<void> {
    const placement = await this.placement.place(c.id, c.endpoint);
    c.endpoint = placement.endpoint;
    c.kubeconfig.namespace = placement.namespace;
    this.runsServedVersion(c);
    touch(c);
    const ready = placement.ready.then(async ({ admin, caPem }) => {
      if (c.kubeconfig.account === undefined || c.kubeconfig.caPem !== caPem) {
        const credential = await this.issue(c, admin, caPem);
        // Background work: after the cluster's create and other changes, and only if it is still there.
        await this.state.created(c.id);
        await this.state.exclusive(c.id, async () => {
          if (this.state.held(c.id) !== c) return;
          c.kubeconfig = credential;
          touch(c);
          this.state.changedInPlace(c.id);
        });
      }
      return admin;
    });
    ready.catch((e: Error) => this.log(`cluster ${c.id}: ${e.message}`));
    this.backed.set(c.id, { cluster: c, placement, ready, syncing: false });
    this.state.changedInPlace(c.id);
  }

  /** The Kubernetes version every backed cluster runs. */
  get version(): string {
    return this.placement.version;
  }

  /** `c` and its nodes run the version its API server serves. */
  private runsServedVersion(c: ClusterRecord): void {
    c.kubernetes_version = this.placement.version;
    for (const n of c.nodes) n.kubernetes_version = this.placement.version;
  }

  /** Resolves once `c`'s kubeconfig works; rejects when its API server could not start. */
  async ready(c: ClusterRecord): Promise<void> {
    await this.backed.get(c.id)?.ready;
  }

  /**
   * A new credential for `c`'s kubeconfig, handed to `record` (which makes it the cluster's, durably);
   * then the previous one stops working. Nothing is revoked when `record` fails.
   */
  async rotate(c: ClusterRecord, record: (credential: KubeconfigCredential) => Promise<unknown>): Promise<void> {
    const entry = this.backed.get(c.id);
    if (!entry) return;
    const admin = await entry.ready;
    const previous = c.kubeconfig.account;
    const previousToken = c.kubeconfig.token;
    await record(await this.issue(c, admin, c.kubeconfig.caPem ?? ""));
    if (previous === undefined) return;
    await this.revoke(c, admin, previous);
    // The API server caches a token's authentication for up to 10 s (not configurable): rotation
    // is done once the old token is refused.
    await refused({ ...admin, token: previousToken });
  }

  /** A new service account, its role binding and a token: the next credential of `c`'s kubeconfig. */
  private async issue(c: ClusterRecord, admin: KubeConnection, caPem: string): Promise<KubeconfigCredential> {
    const generation = Number(c.kubeconfig.account?.match(/-(\d+)$/)?.[1] ?? 0) + 1;
    const account = `cms-kubeconfig-${generation}`;
    const ns = this.accountNamespace(c);
    await kubeCall(admin, "POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: account } }, [409]);
    const binding = {
      metadata: { name: account },
      // Bound in a namespace (a RoleBinding), cluster-admin grants everything in that namespace
      // only. Not the `admin` role: its rules are aggregated by a controller that a bare API
      // server does not run.
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "ServiceAccount", name: account, namespace: ns }],
    };
    const bindings =
      this.placement.scope === "cluster"
        ? "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
        : `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    await kubeCall(admin, "POST", bindings, binding, [409]);
    const res = await kubeCall(admin, "POST", `/api/v1/namespaces/${ns}/serviceaccounts/${account}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: TOKEN_SECONDS },
    });
    const token = (res.body as { status?: { token?: string } }).status?.token;
    if (!token) throw new Error(`the API server issued no token for ${ns}/${account}`);
    return { ...c.kubeconfig, token, caPem, account };
  }

  private async revoke(c: ClusterRecord, admin: KubeConnection, account: string): Promise<void> {
    const ns = this.accountNamespace(c);
    await kubeCall(admin, "DELETE", `/api/v1/namespaces/${ns}/serviceaccounts/${account}`, undefined, [404]);
    const bindings =
      this.placement.scope === "cluster"
        ? "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
        : `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    await kubeCall(admin, "DELETE", `${bindings}/${account}`, undefined, [404]);
  }

  private accountNamespace(c: ClusterRecord): string {
    return this.placement.scope === "cluster" ? ACCOUNTS_NAMESPACE : (c.kubeconfig.namespace ?? "default");
  }

  private tick(): void {
    if (this.closed) return;
    for (const [id, entry] of this.backed) {
      if (entry.syncing) continue;
      if (this.state.isCreating(id)) continue; // not written yet: neither there nor gone
      const c = this.state.get(id);
      entry.syncing = true;
      const work = c ? this.syncNodes(c, entry) : this.release(id, entry);
      work
        .catch((e: Error) => {
          // Closing stops the API servers under a sync in flight: not worth a message.
          if (!this.closed) this.log(`cluster ${id}: ${e.message}`);
        })
        .finally(() => {
          entry.syncing = false;
        });
    }
  }

  /**
   * The cluster is gone: its API server stops and its data goes. In a shared cluster the
   * credential is revoked first, and awaited: the namespace's contents outlive it until that
   * cluster's controllers clean up.
   */
  private async release(id: string, entry: Backed): Promise<void> {
    this.backed.delete(id);
    const { account, token } = entry.cluster.kubeconfig;
    if (this.placement.scope === "namespace" && account !== undefined) {
      const admin = await entry.ready.catch(() => undefined);
      if (admin) {
        await this.revoke(entry.cluster, admin, account);
        await refused({ ...admin, token });
      }
    }
    await entry.placement.stop();
  }

  private async syncNodes(c: ClusterRecord, entry: Backed): Promise<void> {
    if (this.placement.scope !== "cluster") return; // Node objects are not a namespace's to make
    const admin = await entry.ready;
    if (!entry.applied) {
      const res = await kubeCall(admin, "GET", "/api/v1/nodes");
      const names = ((res.body as { items?: Array<{ metadata: { name: string } }> }).items ?? []).map((n) => n.metadata.name);
      entry.applied = new Map(names.map((n) => [n, ""]));
    }
    const applied = entry.applied;
    const wanted = new Map(c.nodes.filter((n) => REGISTERED.has(n.status)).map((n) => [n.name, n]));
    for (const [name, node] of wanted) {
      const shape = JSON.stringify([node.status, node.node_size, node.kubernetes_version, node.ip_address]);
      const before = applied.get(name);
      if (before === shape) continue;
      if (before === undefined) await kubeCall(admin, "POST", "/api/v1/nodes", nodeObject(node), [409]);
      // Also after the create: the API server's admission taints every new node not-ready, as a
      // kubelet's node starts; the taints are the emulator's to set from there.
      await kubeCall(
        admin,
        "PATCH",
        `/api/v1/nodes/${name}`,
        { metadata: { labels: nodeLabels(node) }, spec: nodeSpec(node) },
        [],
        "application/merge-patch+json",
      );
      await kubeCall(admin, "PATCH", `/api/v1/nodes/${name}/status`, { status: nodeStatus(node) }, [], "application/merge-patch+json");
      applied.set(name, shape);
      if (node.status === "draining" && !before?.startsWith('["draining"')) await evictPods(admin, name);
    }
    for (const name of [...applied.keys()]) {
      if (wanted.has(name)) continue;
      await kubeCall(admin, "DELETE", `/api/v1/nodes/${name}`, undefined, [404]);
      // The machine is gone, and its pods with it: no kubelet will confirm their deletion.
      await forEachPodOn(admin, name, (pod) =>
        kubeCall(admin, "DELETE", `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}`, { gracePeriodSeconds: 0 }, [404]),
      );
      applied.delete(name);
    }
  }

  /** Stops every API server; with `--state` their data stays for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.backed.values()].map((e) => e.placement.suspend()));
    this.backed.clear();
    await this.placement.close();
    this.cleanup();
  }
}

/** Resolves once the API server answers 401 to `conn`'s token (at most 30 s). */
async function refused(conn: KubeConnection): Promise<void> {
  await waitUntil("revoking the previous kubeconfig credential", async () => (await kubeRequest(conn, "GET", "/api")).status === 401, {
    timeoutMs: 30_000,
    intervalMs: 200,
    timeoutMessage: "the previous kubeconfig credential is still accepted 30 s after its revocation",
  });
}

function nodeLabels(n: NodeRecord): Record<string, string> {
  return {
    "kubernetes.io/hostname": n.name,
    "kubernetes.io/os": "linux",
    "node.kubernetes.io/instance-type": n.node_size,
    "cms.example/node-id": n.id,
    ...(n.role === "controlplane" ? { "node-role.kubernetes.io/control-plane": "" } : {}),
  };
}

/** The pods bound to node `name`. */
async function forEachPodOn(admin: KubeConnection, name: string, act: (pod: { namespace: string; name: string }) => Promise<unknown>) {
  const res = await kubeCall(admin, "GET", `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`);
  const items = (
    res.body as { items?: Array<{ metadata: { namespace: string; name: string; ownerReferences?: Array<{ kind: string }> } }> }
  ).items;
  for (const pod of items ?? []) {
    // A DaemonSet's pods stay, as `kubectl drain --ignore-daemonsets` leaves them.
    if (pod.metadata.ownerReferences?.some((o) => o.kind === "DaemonSet")) continue;
    await act(pod.metadata);
  }
}

/**
 * A drain: every pod of the node is evicted through the Eviction API, which honours
 * PodDisruptionBudgets. One a budget holds (429) stays until the node is gone.
 */
async function evictPods(admin: KubeConnection, name: string): Promise<void> {
  await forEachPodOn(admin, name, (pod) =>
    kubeCall(
      admin,
      "POST",
      `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}/eviction`,
      { apiVersion: "policy/v1", kind: "Eviction", metadata: pod },
      [404, 429],
    ),
  );
}

/**
 * Taints and cordon: control planes take no workloads; a node not `ready` takes no new pods
 * (the taint the node lifecycle controller would set); a draining or deleting one is cordoned.
 */
function nodeSpec(n: NodeRecord): { taints: unknown[] | null; unschedulable: boolean } {
  const taints = [
    ...(n.role === "controlplane" ? [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] : []),
    ...(n.status !== "ready" ? [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] : []),
  ];
  // null: a merge patch removes the last taint.
  return { taints: taints.length > 0 ? taints : null, unschedulable: CORDONED.has(n.status) };
}

function nodeObject(n: NodeRecord): unknown {
  // Pod addresses come from the node's own range (kwok hands them out): unique across the cluster.
  const host = n.ip_address.split(".").at(-1);
  const { taints, unschedulable } = nodeSpec(n);
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: n.name, labels: nodeLabels(n) },
    spec: { ...(taints ? { taints } : {}), unschedulable, podCIDR: `10.244.${host}.0/24` },
  };
}

function nodeStatus(n: NodeRecord): unknown {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const ready = n.status === "ready";
  const resources = { ...NODE_CAPACITY[n.node_size], pods: MAX_PODS };
  return {
    capacity: resources,
    allocatable: resources,
    conditions: [
      {
        type: "Ready",
        status: ready ? "True" : "False",
        reason: ready ? "KubeletReady" : "KubeletNotReady",
        message: `node is ${n.status}`,
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ],
    addresses: [...(n.ip_address ? [{ type: "InternalIP", address: n.ip_address }] : []), { type: "Hostname", address: n.name }],
    nodeInfo: {
      kubeletVersion: n.kubernetes_version,
      osImage: `Talos (${n.talos_version})`,
      operatingSystem: "linux",
      architecture: "amd64",
      machineID: "",
      systemUUID: "",
      bootID: "",
      kernelVersion: "",
      containerRuntimeVersion: "",
      kubeProxyVersion: "",
    },
  };
}
