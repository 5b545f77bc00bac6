/**
 * What makes a cluster of {@link LocalControlPlanes} run workloads: beside its API server, a
 * kube-controller-manager (workloads, endpoints, garbage collection: {@link CONTROLLERS}), a
 * kube-scheduler, and kwok, the simulated kubelet of every Node object (pods bound to a node
 * start Running with an address, and go when deleted). The Node objects themselves, their
 * readiness and capacity, are the emulator's to keep (backing.ts): they follow the API's nodes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { KubernetesBinaries } from "./binaries";
import { type TiedProcess, spawnTied } from "./processes";

/** The running components of one cluster. */
export interface Workloads {
  stop(): Promise<void>;
}

/**
 * The controllers a cluster runs: each one watches its objects, and every informer is memory the
 * controller manager keeps (docs/benchmarks.md, Memory per cluster). Named one by one rather
 * than `*`, so that those with nothing to act on in an emulated cluster stay off:
 * - node lifecycle is the emulator's (a node is Ready while the API says `ready`, backing.ts),
 *   so the controller that would judge nodes by kubelet heartbeats is off;
 * - nothing asks for certificates (no kubelet joins: kwok plays it), so the certificate signing
 *   request controllers, the bootstrap token signer and cleaner, and the cluster trust bundle
 *   publisher are off (the signer would not start anyway: no signing key is given);
 * - no device driver publishes devices (no kubelet), so the dynamic resource allocation
 *   controllers are off;
 * - the node TTL annotation, the node IPAM (the emulator gives each node its pod range), the
 *   year-old legacy token cleaner, the SELinux warnings, pod certificate requests, pod groups
 *   and the storage version ones serve kubelets or alpha features only;
 * - the validating admission policy status controller only writes type-checking warnings into a
 *   policy's status (the API server enforces the policies without it), and it costs the most:
 *   it builds the schemas of every resource to check the policies' expressions against.
 * Everything a workload, a Service, a volume claim, a quota or an autoscaler needs stays.
 */
const CONTROLLERS = [
  // Workloads and their pods.
  "deployment-controller",
  "replicaset-controller",
  "replicationcontroller-controller",
  "statefulset-controller",
  "daemonset-controller",
  "job-controller",
  "cronjob-controller",
  "ttl-after-finished-controller",
  "disruption-controller",
  "pod-garbage-collector-controller",
  "taint-eviction-controller",
  "horizontal-pod-autoscaler-controller",
  // Services.
  "endpoints-controller",
  "endpointslice-controller",
  "endpointslice-mirroring-controller",
  "service-cidr-controller",
  // Namespaces, ownership, quotas, access.
  "garbage-collector-controller",
  "namespace-controller",
  "resourcequota-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
  "clusterrole-aggregation-controller",
  // Volumes.
  "persistentvolume-binder-controller",
  "persistentvolume-attach-detach-controller",
  "persistentvolume-expander-controller",
  "persistentvolume-protection-controller",
  "persistentvolumeclaim-protection-controller",
  "ephemeral-volume-controller",
  "volumeattributesclass-protection-controller",
].join(",");

/**
 * kwok's stages: what a kubelet does to a pod, in the steps that matter to clients. A pod bound
 * to a node runs at once: Running, Ready, an address from the node's pod CIDR, every container
 * running (init containers completed). A Job's pod completes a second later. A pod being deleted
 * is gone once nothing else holds it (no finalizers), as after a kubelet's confirmation.
 */
const STAGES = [
  {
    // kwok plays the kubelet only of the nodes its node controller manages, and runs that
    // controller only when it has a node stage. The Node objects are the emulator's to keep:
    // this stage matches none of them.
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "cms-node-kept-by-emulator" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Node" },
      selector: { matchExpressions: [{ key: '.metadata.annotations["cms.example/kwok-node-stage"]', operator: "Exists" }] },
      next: {},
    },
  },
  {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "cms-pod-run" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Pod" },
      selector: {
        matchExpressions: [
          { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" },
          { key: ".spec.nodeName", operator: "Exists" },
          { key: ".status.podIP", operator: "DoesNotExist" },
        ],
      },
      next: {
        statusTemplate: `{{ $now := Now }}
phase: Running
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
startTime: {{ $now | Quote }}
conditions:
- { type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }} }
- { type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }} }
- { type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }} }
- { type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }} }
{{ with .spec.initContainers }}
initContainerStatuses:
{{ range . }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  restartCount: 0
  state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
{{ end }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  started: true
  restartCount: 0
  state: { running: { startedAt: {{ $now | Quote }} } }
{{ end }}
`,
      },
    },
  },
  {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "cms-job-pod-complete" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Pod" },
      selector: {
        matchExpressions: [
          { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" },
          { key: ".status.phase", operator: "In", values: ["Running"] },
          { key: ".metadata.ownerReferences.[].kind", operator: "In", values: ["Job"] },
        ],
      },
      delay: { durationMilliseconds: 1000 },
      next: {
        statusTemplate: `{{ $now := Now }}
phase: Succeeded
conditions:
- { type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }} }
- { type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }} }
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
{{ end }}
`,
      },
    },
  },
  {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "cms-pod-delete" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Pod" },
      selector: {
        matchExpressions: [
          { key: ".metadata.deletionTimestamp", operator: "Exists" },
          { key: ".metadata.finalizers", operator: "DoesNotExist" },
        ],
      },
      next: { delete: true },
    },
  },
];

/** Writes what the components read: their kubeconfig (the emulator's admin access) and kwok's stages. */
function writeConfig(dir: string, server: string, caFile: string, token: string): { kubeconfig: string; stages: string } {
  const kubeconfig = join(dir, "components.kubeconfig");
  writeFileSync(
    kubeconfig,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "local", cluster: { server, "certificate-authority": caFile } }],
      users: [{ name: "cms-emulator", user: { token } }],
      contexts: [{ name: "local", context: { cluster: "local", user: "cms-emulator" } }],
      "current-context": "local",
    }),
    { mode: 0o600 },
  );
  const stages = join(dir, "kwok-stages.yaml");
  writeFileSync(stages, STAGES.map((s) => stringify(s)).join("---\n"));
  return { kubeconfig, stages };
}

/**
 * Starts the controller manager, the scheduler and kwok of the cluster whose API server listens
 * at `server`; each logs to a file of `dir` and is tied to the emulator (processes.ts).
 */
export function startWorkloads(binaries: KubernetesBinaries, dir: string, server: string, caFile: string, token: string): Workloads {
  const { kubeconfig, stages } = writeConfig(dir, server, caFile, token);
  // No component serves anything of its own (--secure-port=0): nothing to bind, nothing to secure.
  const common = [`--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--secure-port=0", "--profiling=false"];
  const procs: TiedProcess[] = [
    spawnTied(
      binaries.controllerManager,
      [...common, `--controllers=${CONTROLLERS}`, "--use-service-account-credentials=false"],
      join(dir, "kube-controller-manager.log"),
    ),
    spawnTied(binaries.scheduler, common, join(dir, "kube-scheduler.log")),
    spawnTied(
      binaries.kwok,
      [`--kubeconfig=${kubeconfig}`, `--config=${stages}`, "--manage-all-nodes=true", "--node-lease-duration-seconds=0"],
      join(dir, "kwok.log"),
    ),
  ];
  return {
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop(5000)));
    },
  };
}
