/**
 * `cms-recover`'s side of the Pulumi CLI: running it on the stack, and putting an edited
 * deployment back (`pulumi stack import`, which takes the stack's lock: refused, changing
 * nothing, while an update runs).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { OperationError } from "../shared/errors/operation-error";

/** A resource of `pulumi stack export`, as far as `cms-recover` reads or writes it. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  delete?: boolean;
  pendingReplacement?: boolean;
  parent?: string;
  provider?: string;
}

export interface StackExport {
  deployment?: {
    resources?: StateResource[];
    pending_operations?: Array<{ type: string; resource: { urn: string; type: string; inputs?: Record<string, unknown> } }>;
  };
}

/** `pulumi ARGS --stack STACK --non-interactive`, its output captured; `env` added to the process's. */
export function pulumi(
  args: string[],
  stack: string | undefined,
  env: Record<string, string> = {},
): { code: number; stdout: string; stderr: string } {
  const full = [...args, ...(stack ? ["--stack", stack] : []), "--non-interactive"];
  const r = spawnSync(process.env.PULUMI_COMMAND || "pulumi", full, {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ...env },
  });
  if (r.error) throw new OperationError(`cannot run pulumi: ${r.error.message}`);
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The names of every stack of the backend (`pulumi stack ls --all`), read one at a time: the CLI's
 * PostgreSQL backend (3.276) reads up to 10 stacks at once, each holding one of its connections
 * while it asks for another, from a pool of twice the machine's cores, so with more stacks than
 * that the listing waits for ever. One at a time it needs two.
 */
export function listStacks(): string[] {
  const listed = pulumi(["stack", "ls", "--all", "--json"], undefined, { PULUMI_DIY_BACKEND_PARALLEL: "1" });
  if (listed.code !== 0) throw new OperationError(`pulumi stack ls failed: ${listed.stderr.trim()}`);
  return (JSON.parse(listed.stdout) as Array<{ name: string }>).map((s) => s.name);
}

/** The stack's deployment, as `pulumi stack export` gives it (secrets stay encrypted). */
export function exportStack(stack: string | undefined): StackExport {
  const exported = pulumi(["stack", "export"], stack);
  if (exported.code !== 0) throw new OperationError(`pulumi stack export failed: ${exported.stderr.trim()}`);
  return JSON.parse(exported.stdout) as StackExport;
}

/** Imports `raw` as the stack's deployment (from a file only this user can read, removed after). */
export function importStack(raw: StackExport, stack: string | undefined): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cms-recover-"));
  const file = path.join(dir, "stack.json");
  try {
    writeFileSync(file, JSON.stringify(raw), { mode: 0o600 });
    const r = pulumi(["stack", "import", "--file", file], stack);
    if (r.code !== 0) throw new OperationError(`pulumi stack import failed:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A recorded cluster carries an initialization error, so that the next `up` waits for it; the
 * engine then runs an update (`~ 1 updated`; one still `provisioning` shows `[diff: ~status]`,
 * which also survives the refresh of `up --refresh`, where the error does not). One that
 * is running already needs no wait: a refresh of just those reads them through the provider
 * (outputs, kubeconfig as a secret) and clears the error, and the next `up` has nothing to do.
 */
export function readRunning(
  recorded: ReadonlyArray<{ urn: string; id: string }>,
  clusters: ReadonlyArray<{ id: string; status: string }>,
  stack: string | undefined,
): void {
  const running = recorded.filter((i) => clusters.find((c) => c.id === i.id)?.status === "running");
  const waiting = recorded.filter((i) => !running.includes(i));
  if (running.length > 0) {
    const r = pulumi(["refresh", "--yes", "--skip-preview", ...running.flatMap((i) => ["--target", i.urn])], stack);
    if (r.code !== 0) {
      console.error(
        `cms-recover: reading the recorded running clusters failed (pulumi refresh, exit ${r.code}); the next \`pulumi up\` reads them instead (an update that shows no diff):\n` +
          `${r.stdout}${r.stderr}`.trim().split("\n").slice(-10).join("\n"),
      );
    }
  }
  for (const i of waiting) {
    console.log(`cms-recover: ${i.urn}: cluster ${i.id} is not running yet: the next \`pulumi up\` waits for it (an update of its status)`);
  }
}
