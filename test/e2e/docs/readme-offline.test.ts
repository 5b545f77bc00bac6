/**
 * The README's quick start, typed into one shell as written, from an empty directory: a HOME of
 * its own, the Pulumi CLI and Node.js on PATH, nothing else of this machine's Pulumi. The packed
 * packages stand in for the registry's `pulumi-cms`, `@pulumi-cms/emulator` and the
 * `@pulumi-cms/contract` both depend on (the changes to the text: the two `npm install` lines
 * install the tarballs, and after `npm init` an `overrides` entry takes the contract from its
 * tarball, leaving the project's dependencies as the user's); everything else, `@pulumi/pulumi`
 * and TypeScript included, comes from npm as it would for a user. Then its clean-up block, in the
 * same shell.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, REPO_ROOT } from "../lifecycle/harness.mjs";
import { bashBlockAfter, stillAnswering } from "../../support/docs";
import { contractOverride, EMULATOR_PACKAGE, envWithNode, nodeBin, packTarball, workDir } from "../../support/packages";
import { shell, stopFromPidFile } from "../../support/shell";

const STEP_TIMEOUT = 8 * 60_000;
const INIT = "npm init -y > /dev/null";
const INSTALL = "npm install pulumi-cms @pulumi/pulumi typescript@5";
const INSTALL_EMULATOR = "npm install --save-dev @pulumi-cms/emulator";

describe.skipIf(lifecycleSkipped())("README: the quick start, typed as written from an empty directory", () => {
  let work: string;
  let start: string;
  let env: NodeJS.ProcessEnv;
  let tarball: string;
  let emulatorTarball: string;
  let overrides: string[];
  const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    work = workDir("offline");
    tarball = packTarball(work);
    emulatorTarball = packTarball(work, EMULATOR_PACKAGE);
    overrides = Object.entries(contractOverride(work)).map(([name, spec]) => `npm pkg set 'overrides.${name}=${spec}'`);
    start = path.join(work, "start");
    fs.mkdirSync(start);
    fs.mkdirSync(path.join(work, "home"));
    env = envWithNode(`${binDir}${path.delimiter}${nodeBin(22)}`, {
      HOME: path.join(work, "home"),
      PULUMI_SKIP_UPDATE_CHECK: "1",
      // The machine's npm cache (the new HOME has none): packages come from it or from npm.
      npm_config_cache: process.env.npm_config_cache ?? path.join(process.env.HOME ?? "", ".npm"),
    });
    for (const k of ["PULUMI_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_HOME", "CMS_ENDPOINT", "CMS_TOKEN"])
      delete env[k];
  }, STEP_TIMEOUT);
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it(
    "reaches a running cluster; the clean-up destroys it, removes the stack and its file, and stops the emulator",
    async () => {
      const quickStart = bashBlockAfter(readme, "## Quick start: offline, against the emulator", "README.md");
      expect(quickStart.split("\n")).toContain(INIT);
      expect(quickStart.split("\n")).toContain(INSTALL);
      expect(quickStart.split("\n")).toContain(INSTALL_EMULATOR);
      const cleanUp = bashBlockAfter(readme, "### Clean up", "README.md");
      const project = path.join(start, "my-clusters");
      const sh = shell(start, env);
      try {
        const fromTarballs = quickStart
          .replace(INIT, [INIT, ...overrides].join("\n"))
          .replace(INSTALL, INSTALL.replace("pulumi-cms", `pulumi-cms@file:${tarball}`))
          .replace(INSTALL_EMULATOR, INSTALL_EMULATOR.replace("@pulumi-cms/emulator", `@pulumi-cms/emulator@file:${emulatorTarball}`));
        await sh.type(fromTarballs, STEP_TIMEOUT);
        expect(sh.output()).toMatch(/Cluster\s+dev\s+created/);
        // What the README promises: a running cluster, on the emulator the block started.
        const port = /127\.0\.0\.1:(\d+)/.exec(quickStart)![1];
        const token = /--token (\S+)/.exec(quickStart)![1];
        const list = await fetch(`http://127.0.0.1:${port}/v1/clusters`, { headers: { authorization: `Bearer ${token}` } });
        const { items } = (await list.json()) as { items: Array<{ status: string; name: string }> };
        expect(items).toMatchObject([{ status: "running" }]);
        // What the README says of the preview: it lists the seed, and the name is `dev-` and 7 characters.
        expect(readme).toContain("The preview lists `cms-autoname-seed` beside the Cluster");
        expect(sh.output()).toMatch(/AutoNameSeed\s+cms-autoname-seed\s+create/);
        expect(items[0].name).toMatch(/^dev-[a-z0-9]{7}$/);

        // The README's way to read the kubeconfig, typed as written: it prints it.
        const readKubeconfig = bashBlockAfter(readme, "The kubeconfig is a secret output, shown as `[secret]`; to read it:", "README.md");
        const beforeKubeconfig = sh.output().length;
        await sh.type(readKubeconfig, STEP_TIMEOUT);
        const kubeconfig = sh.output().slice(beforeKubeconfig);
        expect(kubeconfig).toMatch(/^apiVersion: v1$/m);
        expect(kubeconfig).toMatch(/^kind: Config$/m);

        expect(fs.existsSync(path.join(project, "Pulumi.dev.yaml"))).toBe(true);

        // A refresh right after the create, with the program as the rotation recipe (docs/kubernetes.md)
        // runs it: nothing reads as changed, not even on the rows shown while it reads.
        expect(fs.readFileSync(path.join(REPO_ROOT, "docs", "kubernetes.md"), "utf8")).toContain("pulumi refresh --run-program --yes");
        const before = sh.output().length;
        await sh.type("pulumi refresh --run-program --yes", STEP_TIMEOUT);
        const refreshed = sh.output().slice(before);
        expect(refreshed).toMatch(/3 unchanged/);
        expect(refreshed).not.toContain("[diff:");

        // "Change `workers: 2` to `3` and run `pulumi up --yes` again: the cluster is scaled in place."
        expect(readme).toContain("Change `workers: 2` to `3` and run `pulumi up --yes` again: the cluster is scaled in place.");
        const index = path.join(project, "index.ts");
        fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace("workers: 2", "workers: 3"));
        await sh.type("pulumi up --yes", STEP_TIMEOUT);
        expect(sh.output()).toMatch(/Cluster\s+dev\s+updated/);
        const scaled = await fetch(`http://127.0.0.1:${port}/v1/clusters`, { headers: { authorization: `Bearer ${token}` } });
        expect(((await scaled.json()) as { items: Array<{ workers: number }> }).items).toMatchObject([{ workers: 3 }]);

        // A wrong token, set as the quick start sets the right one: the service's refusal is said
        // once, with the fix, and the token typed is not shown.
        await sh.type("pulumi config set --secret cms:token not-the-offline-token", STEP_TIMEOUT);
        fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace("workers: 3", "workers: 2"));
        const beforeRefused = sh.output().length;
        await sh.type('pulumi up --yes || echo "pulumi exited $?"', STEP_TIMEOUT);
        const refused = sh.output().slice(beforeRefused);
        expect(refused).toMatch(/pulumi exited [1-9]/);
        const diagnostics = refused.slice(refused.indexOf("Diagnostics:"));
        expect(diagnostics.match(/invalid|expired|rejected/g), diagnostics).toEqual(["invalid", "expired"]);
        expect(diagnostics).toContain(
          "Set the token with `pulumi config set --secret cms:token <token>` or the `CMS_TOKEN` environment variable.",
        );
        expect(refused).not.toContain("not-the-offline-token");
        // The failed up recorded the wrong token with the stack's provider: the next up, with
        // the right one set, records it again (what the destroy's message would advise).
        await sh.type("pulumi config set --secret cms:token offline-token", STEP_TIMEOUT);
        await sh.type("pulumi up --yes", STEP_TIMEOUT);

        await sh.type(cleanUp, STEP_TIMEOUT);
        expect(sh.output()).toMatch(/Cluster\s+dev\s+deleted/);
        expect(sh.output()).toContain("Stack 'dev' has been removed");
        expect(fs.existsSync(path.join(project, "Pulumi.dev.yaml"))).toBe(false);
        expect(await stillAnswering(`http://127.0.0.1:${port}/v1/clusters`)).toBe(false);
      } finally {
        sh.close();
        // The emulator runs in a session of its own: stop it if the clean-up did not.
        stopFromPidFile(path.join(project, "emulator.pid"));
      }
    },
    STEP_TIMEOUT,
  );
});
