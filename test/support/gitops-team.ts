/**
 * What docs/gitops.md's team-scale tests share: a working directory, one PostgreSQL backend
 * (`scripts/postgres`), the package installed once from its packed tarball (each runner's
 * node_modules comes from it, test/support/gitops-runners.mjs), and the environment every runner
 * gets from the CI's secret store, with nothing of this machine's Pulumi.
 */
import fs from "node:fs";
import path from "node:path";
import { findPulumi, REPO_ROOT } from "../e2e/lifecycle/harness.mjs";
import { envWithNode, installProject, nodeBin, packTarball, workDir } from "./packages";
import { type StateBackend, startBackend } from "./state-backends";

export interface Team {
  work: string;
  backend: StateBackend;
  /** Where npm installed the package (`makeRunner`'s `installed`). */
  installed: string;
  env: NodeJS.ProcessEnv;
  /** Stops the backend and removes the directory. */
  stop(): Promise<void>;
}

/** A team in a new directory named after `label`, on the service at `endpoint` with `token`. */
export async function startTeam(label: string, endpoint: string, token: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Team> {
  const { binDir } = await findPulumi();
  const work = workDir(label);
  const backend = await startBackend("postgres", path.join(work, "backend"));
  const node = nodeBin(22);
  const installed = path.join(work, "installed");
  const pulumiVersion = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")).version;
  await installProject(
    installed,
    { name: "clusters", dependencies: { "pulumi-cms": `file:${packTarball(work)}`, "@pulumi/pulumi": pulumiVersion } },
    envWithNode(node),
  );
  const env = envWithNode(`${binDir}${path.delimiter}${node}`, {
    CMS_TOKEN: token,
    CMS_ENDPOINT: endpoint,
    PULUMI_CONFIG_PASSPHRASE: `${label}-passphrase`,
    PULUMI_BACKEND_URL: backend.url,
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_UPDATE_CHECK: "1",
    JOB_TIMEOUT_MINUTES: "60",
    NO_COLOR: "1",
    ...extraEnv,
  });
  delete env.PULUMI_ACCESS_TOKEN;
  const stop = async () => {
    await backend.stop();
    fs.rmSync(work, { recursive: true, force: true });
  };
  return { work, backend, installed, env, stop };
}
