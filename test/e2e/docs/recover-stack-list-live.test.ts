/**
 * `cms-recover --adopt` looks for the cluster in every stack of the backend (`listStacks`). On the
 * CLI's PostgreSQL backend, `pulumi stack ls --all` reads up to 10 stacks at once, each holding one
 * connection of a pool of twice the machine's cores while it asks for another: with more stacks
 * than that it waits for ever (the merge jobs of 8 runners on a 2-core machine hung there). Here
 * the CLI runs on one core (a pool of 2) beside 5 stacks, so the listing hangs wherever the test
 * runs, unless it reads them one at a time.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres } from "../../../scripts/lib/postgres.mjs";
import { listStacks } from "../../../src/recover/stack";
import { workDir } from "../../support/packages";
import { findPulumi, lifecycleSkipped } from "../lifecycle/harness.mjs";

const STACKS = ["s0", "s1", "s2", "s3", "s4"];

describe.skipIf(lifecycleSkipped())("cms-recover's list of the stacks of a PostgreSQL backend", () => {
  let server: { url: string; stop(): Promise<void> };
  const saved = { ...process.env };

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    server = await startPostgres();
    const work = workDir("recover-stack-list");
    const project = path.join(work, "project");
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: listed\nruntime: nodejs\n");
    Object.assign(process.env, {
      PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
      PULUMI_BACKEND_URL: server.url,
      PULUMI_CONFIG_PASSPHRASE: "listed",
      PULUMI_HOME: path.join(work, ".pulumi"),
      PULUMI_SKIP_UPDATE_CHECK: "1",
      GOMAXPROCS: "1",
    });
    for (const stack of STACKS) execFileSync("pulumi", ["stack", "init", stack, "--non-interactive"], { cwd: project, stdio: "ignore" });
  }, 120_000);

  afterAll(async () => {
    process.env = saved;
    await server?.stop();
  });

  it("names every stack, with more stacks than the CLI's connections (its parallel listing waits for ever there)", () => {
    expect(listStacks().sort()).toEqual(STACKS.map((s) => `organization/listed/${s}`).sort());
  }, 60_000);
});
