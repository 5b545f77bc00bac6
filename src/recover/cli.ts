#!/usr/bin/env node
/**
 * `cms-recover`: resolve the Cluster creates (of either face: the dynamic `Cluster`, the native
 * `cms:index:Cluster`) that a killed `pulumi up` left pending in a stack.
 *
 * Run it in the project directory with the environment `pulumi` runs with (backend login,
 * passphrase, stack), after `pulumi cancel` and before the next `pulumi up`. It is
 * non-interactive and idempotent: with nothing pending it reads the stack and exits 0.
 *
 * 1. `pulumi stack export` gives the pending creates (with their inputs) and the clusters the
 *    state holds.
 * 2. The clusters are listed with the stack's connection (`CMS_ENDPOINT`/`CMS_TOKEN`, else
 *    `pulumi config get cms:endpoint|cms:token`), and `plan.ts` decides.
 * 3. The stack is edited and imported back (`pulumi stack import`): each pending create whose
 *    cluster was found becomes a resource with that id, marked with an initialization error so
 *    that the next `pulumi up` reads it and waits until it is running (the same path as a create
 *    that timed out); the pending creates that made nothing are dropped. (`pulumi refresh
 *    --import-pending-creates` would be the engine's own way, but v3.248 drops the operation
 *    instead of recording the resource.)
 * What counts as the cluster a create made is `plan.ts`'s rule: only a name derived from the
 * stack's seed proves it; for any other name the candidates are printed and a person records one
 * with `--adopt ID`. With no Cluster create pending, `--adopt ID` records a cluster whose record
 * a restore of the state lost (`adopt.ts`). Exit 0 when resolved, 2 when a person must choose
 * (the candidates and the command are printed, nothing is changed), 1 on any other failure.
 */
import { parseArgs } from "node:util";
import { createClient } from "../client";
import { describeCandidates } from "../shared/domain/ownership";
import { CLUSTER_TYPES, planRecovery, type PendingCreate } from "./plan";
import { OperationError } from "../shared/errors/operation-error";
import { planLines } from "./report";
import { adoptUnrecorded } from "./adopt";
import { exportStack, importStack, pulumi, readRunning, type StackExport } from "./stack";

const USAGE = `Usage: cms-recover [--stack NAME] [--adopt ID]... [--dry-run]

Resolves the Cluster creates that an interrupted \`pulumi up\` left pending in the stack:
records the cluster each one created (the next \`pulumi up\` waits until it is running), or
drops the ones that created nothing. Run it in the project directory after
\`pulumi cancel --yes\` and before the next \`pulumi up\`. Idempotent.

A cluster is recorded on its own only when it carries the stack's own auto-name for the
resource. For a create with an explicit name (or a name from release 0.2.0) a cluster with
that name may be anybody's: the candidates are printed, nothing is changed, and the exit code
is 2; if one is this stack's, run again with --adopt ID.

  --stack NAME   the stack (default: the selected one)
  --adopt ID     record cluster ID for the pending create whose name it carries (repeatable);
                 with no Cluster create pending, for the Cluster of the program that carries
                 its name and that the stack does not record (a restore of the state lost its
                 record): refused when another stack of the backend records it, or the program
                 does not describe it; a cluster the stack records already is left as it is
  --dry-run      print what it would do, change nothing
  -h, --help     this help
`;

/** Apply the plan to the exported stack and import it back. */
function writeBack(raw: StackExport, plan: ReturnType<typeof planRecovery>, stack: string | undefined): void {
  const deployment = raw.deployment as Required<NonNullable<StackExport["deployment"]>> & Record<string, unknown>;
  const found = new Map(plan.imports.map((i) => [i.urn, i.id]));
  const dropped = new Set(plan.clears.map((c) => c.urn));
  const kept: typeof deployment.pending_operations = [];
  for (const op of deployment.pending_operations ?? []) {
    const urn = op.resource.urn;
    if (op.type !== "creating" || !CLUSTER_TYPES.has(op.resource.type)) kept.push(op);
    else if (found.has(urn)) {
      // The resource this create replaces, if any: after a delete-before-replace its cluster is
      // gone (`pendingReplacement`) and the entry goes; otherwise it is marked for deletion,
      // which the next `up` carries out, as the engine does once a replacement exists.
      deployment.resources = deployment.resources.filter((r) => !(r.urn === urn && r.pendingReplacement === true));
      for (const r of deployment.resources) if (r.urn === urn && !r.delete) r.delete = true;
      // Nothing in the state depends on a resource whose create never finished: appending keeps
      // the order valid (its provider and parent come earlier).
      deployment.resources.push({
        ...op.resource,
        id: found.get(urn),
        outputs: { ...(op.resource.inputs ?? {}) },
        initErrors: ["created by a run that was interrupted; recorded by cms-recover: the next `pulumi up` waits until it is running"],
      } as never);
    } else if (!dropped.has(urn)) kept.push(op);
  }
  deployment.pending_operations = kept;
  importStack(raw, stack);
}

function setting(env: string, key: string, stack: string | undefined): string {
  const fromEnv = process.env[env]?.trim();
  if (fromEnv) return fromEnv;
  const r = pulumi(["config", "get", key], stack);
  const value = r.code === 0 ? r.stdout.trim() : "";
  if (!value) throw new OperationError(`no ${key}: set ${env} or \`pulumi config set ${key} ...\``);
  return value;
}

/** Runs the command with `argv` (without `node` and the script); resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stack: { type: "string" },
      adopt: { type: "string", multiple: true },
      "dry-run": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const stack = values.stack;
  const raw = exportStack(stack);
  const deployment = raw.deployment ?? {};
  const allPending = (deployment.pending_operations ?? []).filter((op) => op.type === "creating");
  const pending: PendingCreate[] = allPending
    .filter((op) => CLUSTER_TYPES.has(op.resource.type))
    .map((op) => ({ urn: op.resource.urn, inputs: op.resource.inputs ?? {} }));
  const client = () =>
    createClient({
      endpoint: setting("CMS_ENDPOINT", "cms:endpoint", stack),
      token: setting("CMS_TOKEN", "cms:token", stack),
    });
  if (pending.length === 0) {
    // With no create pending, --adopt names a cluster whose record the state lost (a restore).
    if (values.adopt?.length) return adoptUnrecorded(values.adopt, { raw, stack, client: client(), dryRun: values["dry-run"] === true });
    console.log("cms-recover: no pending Cluster create in the stack; nothing to do");
    return 0;
  }

  const inState = new Set((deployment.resources ?? []).filter((r) => CLUSTER_TYPES.has(r.type) && r.id).map((r) => r.id as string));
  const clusters = await client().listAllClusters();
  const plan = planRecovery(pending, inState, clusters, new Set(values.adopt ?? []));

  if (plan.unmatchedAdoptions.length > 0) {
    console.error(
      `cms-recover: --adopt ${plan.unmatchedAdoptions.join(", ")}: no pending Cluster create of this stack asked for that cluster's name ` +
        "(or it does not exist, is being deleted, or the stack already holds it). Pending creates: " +
        pending.map((p) => `${p.urn} ("${String(p.inputs.name ?? "")}")`).join(", ") +
        ". Nothing was changed.",
    );
    return 2;
  }
  // Said once done (or with --dry-run): an import refused by the lock of a running update changes nothing.
  const said = planLines(plan, values["dry-run"] === true);
  if (plan.undecided.length > 0) {
    for (const u of plan.undecided) {
      const why =
        u.reason === "ambiguous"
          ? "several clusters carry the stack's own auto-name for it (did a copy of the stack's state run too?)"
          : "a cluster name proves nothing (another stack, a colleague or the console may have made it)";
      const ids = u.candidates.map((c) => c.id);
      console.error(
        `cms-recover: ${u.urn}: the interrupted create of "${u.name}" may have made ${describeCandidates(u.candidates)}, but ${why}.\n` +
          `  If one of them is this stack's, record it: cms-recover${values.stack ? ` --stack ${values.stack}` : ""} --adopt ${ids[0]}${ids.length > 1 ? ` (or ${ids.slice(1).join(", ")})` : ""}\n` +
          "  If none is, drop the pending create: pulumi refresh --clear-pending-creates --yes. Nothing was changed.",
      );
    }
    return 2;
  }
  if (values["dry-run"]) {
    for (const line of said) console.log(line);
    return 0;
  }

  if (allPending.length !== pending.length) {
    console.error(
      "cms-recover: other resources' creates are pending too; they are left for `pulumi refresh` to resolve (interactive, or --import-pending-creates / --clear-pending-creates).",
    );
  }
  writeBack(raw, plan, stack);
  for (const line of said) console.log(line);
  readRunning(plan.imports, clusters, stack);
  // After the lines saying what was recorded or dropped: what is left, not "no pending create", which reads as nothing done.
  console.log("cms-recover: no Cluster create is pending any more; run `pulumi up`");
  return 0;
}

/** The process of the command: runs it on its arguments and exits with its code (1 on an unexpected failure). */
export function runProcess(argv: string[]): void {
  run(argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`cms-recover: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}

if (require.main === module) runProcess(process.argv.slice(2));
