/**
 * `cms-recover --adopt ID` with no Cluster create pending: a person says that cluster ID is the
 * one a Cluster of this stack's program declares, though the stack does not record it (a restore
 * of the state lost its record). `cms-gitops merge` stops with this command when a create with an
 * explicit name finds such a cluster, since a name proves nothing.
 *
 * What the next `pulumi up` would create comes from `pulumi preview --json`: the Cluster whose
 * name the cluster carries, with the URN, parent, provider and checked inputs the engine would
 * record. The cluster is recorded as that resource, with an initialization error (as for a
 * pending create, `cli.ts`), and read at once when it is running. It refuses, changing nothing,
 * when the cluster is gone or being deleted, when another stack of the backend records it, when
 * no Cluster of the program (or several) would create a cluster of its name, or when the program
 * does not describe it. Idempotent: a cluster the stack records already is left as it is.
 */
import type { ApiCluster } from "@pulumi-cms/contract";
import type { CmsClient } from "../client";
import { isNotFound } from "../client/errors";
import { importMismatches } from "../provider/naming/adoption";
import { OperationError } from "../shared/errors/operation-error";
import { CLUSTER_TYPES } from "./plan";
import { exportStack, importStack, listStacks, pulumi, readRunning, type StackExport, type StateResource } from "./stack";

/** A step of `pulumi preview --json`, as far as this reads it. */
export interface PreviewStep {
  op: string;
  urn: string;
  newState?: {
    type: string;
    parent?: string;
    provider?: string;
    inputs?: Record<string, unknown>;
    additionalSecretOutputs?: string[];
  };
}

/** What to do about one `--adopt ID`. */
export type Adoption =
  | { verdict: "recorded already"; urn: string }
  | { verdict: "refused"; why: string }
  | { verdict: "record"; resource: StateResource & Record<string, unknown> };

/** The preview's placeholder for a secret value: never written into the state. */
const SECRET_SHOWN = "[secret]";

/**
 * Decides, without I/O, what `--adopt` does with `cluster` (undefined: the service does not have
 * it): `resources` are the stack's, `elsewhere` the first resource of another stack that records
 * it, `steps` the preview's.
 */
export function decideAdoption(
  id: string,
  cluster: ApiCluster | undefined,
  resources: readonly StateResource[],
  elsewhere: { stack: string; urn: string } | undefined,
  steps: readonly PreviewStep[],
): Adoption {
  const held = resources.find((r) => r.id === id && CLUSTER_TYPES.has(r.type) && !r.delete);
  if (held) return { verdict: "recorded already", urn: held.urn };
  if (!cluster) return { verdict: "refused", why: `cluster ${id} does not exist` };
  if (cluster.status === "deleting") return { verdict: "refused", why: `cluster ${id} is being deleted` };
  if (elsewhere) return { verdict: "refused", why: `cluster ${id} is recorded by stack ${elsewhere.stack} (${elsewhere.urn})` };
  const creates = steps.filter(
    (s) => s.op === "create" && s.newState && CLUSTER_TYPES.has(s.newState.type) && s.newState.inputs?.name === cluster.name,
  );
  if (creates.length !== 1) {
    return {
      verdict: "refused",
      why:
        creates.length === 0
          ? `no Cluster of the program that the stack does not record is named "${cluster.name}" (pulumi preview creates none of that name)`
          : `several Clusters of the program are named "${cluster.name}" (${creates.map((s) => s.urn).join(", ")})`,
    };
  }
  const [step] = creates;
  const state = step.newState as NonNullable<PreviewStep["newState"]>;
  const inputs = Object.fromEntries(Object.entries(state.inputs ?? {}).filter(([, v]) => v !== SECRET_SHOWN));
  const mismatches = importMismatches(cluster, inputs);
  if (mismatches.length > 0) {
    return {
      verdict: "refused",
      why: `the program does not describe cluster ${id} (${mismatches.join("; ")}): change the program to describe it as it is, adopt it, then change it`,
    };
  }
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const [providerUrn, providerId] = splitProviderReference(state.provider);
  if (state.provider !== undefined && byUrn.get(providerUrn)?.id !== providerId) {
    return {
      verdict: "refused",
      why: `the stack records no provider for ${step.urn} yet (${state.provider}): set the Cluster's \`import\` resource option to ${id} in the program instead`,
    };
  }
  const stackResource = resources.find((r) => r.type === "pulumi:pulumi:Stack");
  const parent = state.parent !== undefined && byUrn.has(state.parent) ? state.parent : stackResource?.urn;
  return {
    verdict: "record",
    resource: {
      urn: step.urn,
      custom: true,
      type: state.type,
      id,
      ...(parent ? { parent } : {}),
      ...(state.provider ? { provider: state.provider } : {}),
      inputs,
      outputs: { ...inputs },
      ...(state.additionalSecretOutputs ? { additionalSecretOutputs: state.additionalSecretOutputs } : {}),
      initErrors: ["recorded by cms-recover --adopt after its record was lost: the next `pulumi up` reads it"],
    },
  };
}

/** `URN::ID` of a provider reference; the id is after the last `::`. */
function splitProviderReference(reference: string | undefined): [string, string] {
  if (reference === undefined) return ["", ""];
  const at = reference.lastIndexOf("::");
  return [reference.slice(0, at), reference.slice(at + 2)];
}

/** The first resource of another stack of the backend that records cluster `id`, among the stacks `pulumi stack ls --all` lists. */
function recordedElsewhere(id: string, ownPrefix: string | undefined): { stack: string; urn: string } | undefined {
  for (const name of listStacks()) {
    const resources = exportStack(name).deployment?.resources ?? [];
    if (ownPrefix !== undefined && resources.some((r) => r.urn.startsWith(ownPrefix))) continue;
    const holding = resources.find((r) => r.id === id && CLUSTER_TYPES.has(r.type) && !r.delete);
    if (holding) return { stack: name, urn: holding.urn };
  }
  return undefined;
}

async function clusterOrNothing(client: CmsClient, id: string): Promise<ApiCluster | undefined> {
  try {
    return await client.getCluster(id);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Runs `--adopt` for `ids` on the stack `raw` was exported from; resolves with the exit code (0 done, 2 refused). */
export async function adoptUnrecorded(
  ids: readonly string[],
  { raw, stack, client, dryRun }: { raw: StackExport; stack: string | undefined; client: CmsClient; dryRun: boolean },
): Promise<number> {
  const resources = raw.deployment?.resources ?? [];
  // `urn:pulumi:STACK::PROJECT::`, which every resource of this stack starts with.
  const ownPrefix = /^urn:pulumi:[^:]+::[^:]+::/.exec(resources[0]?.urn ?? "")?.[0];
  const preview = pulumi(["preview", "--json"], stack);
  if (preview.code !== 0) throw new OperationError(`pulumi preview failed (exit ${preview.code}):\n${preview.stderr.trim()}`);
  const steps = (JSON.parse(preview.stdout) as { steps?: PreviewStep[] }).steps ?? [];
  const record: Array<{ resource: StateResource; cluster: ApiCluster }> = [];
  let refused = false;
  for (const id of ids) {
    const cluster = await clusterOrNothing(client, id);
    const held = resources.some((r) => r.id === id);
    const adoption = decideAdoption(id, cluster, resources, held || !cluster ? undefined : recordedElsewhere(id, ownPrefix), steps);
    if (adoption.verdict === "recorded already") {
      console.log(`cms-recover: cluster ${id} is recorded by this stack already (${adoption.urn}); nothing to do`);
    } else if (adoption.verdict === "refused") {
      console.error(`cms-recover: --adopt ${id}: ${adoption.why}. Nothing was changed.`);
      refused = true;
    } else record.push({ resource: adoption.resource, cluster: cluster as ApiCluster });
  }
  if (refused) return 2;
  if (record.length === 0) return 0;
  const say = record.map(
    ({ resource, cluster }) =>
      `cms-recover: ${resource.urn}: cluster ${cluster.id} ("${cluster.name}"), which the stack did not record: ${dryRun ? "would record it" : "recording it"} (named with --adopt)`,
  );
  if (dryRun) {
    for (const line of say) console.log(line);
    console.log("cms-recover: dry run: the stack was not changed; run without --dry-run to do the above");
    return 0;
  }
  const deployment = raw.deployment as { resources: StateResource[] };
  deployment.resources = [...resources, ...record.map((r) => r.resource)];
  importStack(raw, stack);
  for (const line of say) console.log(line);
  readRunning(
    record.map(({ resource, cluster }) => ({ urn: resource.urn, id: cluster.id })),
    record.map((r) => r.cluster),
    stack,
  );
  console.log("cms-recover: recorded; run `pulumi up` (or the merge job)");
  return 0;
}
