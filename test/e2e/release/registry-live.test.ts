/**
 * The three packages as a user installs them: published to a real npm registry server (Verdaccio,
 * on loopback, its storage in a temporary directory), then the README's quick start typed as
 * written into a shell whose npm uses that registry, so that `pulumi-cms` and
 * `@pulumi-cms/emulator` are installed by name and `@pulumi-cms/contract` by the version they
 * name. A mistake in `files`, `exports`, a `bin` or a version shows here as it would after a
 * release. The registry serves this repository's packages only from what was published to it (no
 * uplink for their names); everything else it fetches from the registry npm is configured with.
 */
import { type ChildProcess, execFile as execFileCb, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, findPulumi, lifecycleSkipped, REPO_ROOT } from "../lifecycle/harness.mjs";
import { bashBlockAfter, stillAnswering } from "../../support/docs";
import { CONTRACT_PACKAGE, EMULATOR_PACKAGE, envWithNode, nodeBin, packTarball, workDir } from "../../support/packages";
import { shell, stopFromPidFile } from "../../support/shell";
import { freePort } from "../../support/net";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 8 * 60_000;
/** The newest Verdaccio; it runs on Node.js 22 (it recommends 24). */
const VERDACCIO = "verdaccio@6.10.4";
const version = (dir: string): string => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;

describe.skipIf(lifecycleSkipped())("the packages published to an npm registry on loopback, installed by name", () => {
  let work: string;
  let registry: string;
  let verdaccio: ChildProcess | undefined;
  let verdaccioLog = "";
  let env: NodeJS.ProcessEnv;
  const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    work = workDir("registry");
    const node22 = nodeBin(22);
    // The machine's npm cache (the test's HOME has none): after the first run, Verdaccio's own
    // install and the quick start's third-party packages come from it.
    const npmCache = process.env.npm_config_cache ?? path.join(process.env.HOME ?? "", ".npm");
    const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();

    // Verdaccio in a directory of its own, not a dependency of this repository: its 300-odd
    // packages would otherwise be installed by every `npm ci`. Its `node-fetch` range admits a
    // release that no longer loads under `require`: 2.7.0 does.
    const server = path.join(work, "verdaccio");
    fs.mkdirSync(server);
    fs.writeFileSync(path.join(server, "package.json"), JSON.stringify({ private: true, overrides: { "node-fetch": "2.7.0" } }));
    await execFile("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", VERDACCIO], {
      cwd: server,
      env: envWithNode(node22, { npm_config_cache: npmCache }),
      maxBuffer: 64 * 1024 * 1024,
    });
    const port = await freePort();
    registry = `http://127.0.0.1:${port}/`;
    const ours = { access: "$all", publish: "$all" };
    fs.writeFileSync(
      path.join(server, "config.json"),
      JSON.stringify({
        storage: path.join(server, "storage"),
        auth: { htpasswd: { file: path.join(server, "htpasswd") } },
        uplinks: { upstream: { url: upstream } },
        packages: { "pulumi-cms": ours, "@pulumi-cms/*": ours, "**": { access: "$all", proxy: "upstream" } },
        log: { type: "stdout", format: "pretty", level: "warn" },
      }),
    );
    // A process group of its own, so that afterAll stops it and whatever it started.
    verdaccio = spawn(
      path.join(server, "node_modules/.bin/verdaccio"),
      ["--config", path.join(server, "config.json"), "--listen", `127.0.0.1:${port}`],
      { cwd: server, env: envWithNode(node22), stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    verdaccio.stdout!.on("data", (d) => (verdaccioLog += d));
    verdaccio.stderr!.on("data", (d) => (verdaccioLog += d));
    await eventually(
      async () => {
        if (verdaccio!.exitCode !== null) throw new Error(`Verdaccio exited (${verdaccio!.exitCode}):\n${verdaccioLog}`);
        return (await fetch(`${registry}-/ping`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: "Verdaccio to answer /-/ping", describe: () => verdaccioLog },
    );

    // Publishing needs a token for the registry's host; any will do, as it checks none.
    const npmrc = path.join(work, "publish.npmrc");
    fs.writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=rehearsal\n`);
    for (const pkg of [CONTRACT_PACKAGE, REPO_ROOT, EMULATOR_PACKAGE]) {
      await execFile(
        "npm",
        ["publish", packTarball(work, pkg), "--registry", registry, "--userconfig", npmrc, "--ignore-scripts", "--loglevel=error"],
        {
          cwd: work,
          env: envWithNode(node22, { npm_config_cache: npmCache }),
        },
      );
    }

    fs.mkdirSync(path.join(work, "home"));
    fs.mkdirSync(path.join(work, "start"));
    env = envWithNode(`${binDir}${path.delimiter}${node22}`, {
      HOME: path.join(work, "home"),
      PULUMI_SKIP_UPDATE_CHECK: "1",
      npm_config_cache: npmCache,
      // What `--registry URL` on each `npm install` would say, with the README's lines unchanged.
      npm_config_registry: registry,
      // The lockfile records where each package came from, whatever this machine's npmrc says.
      npm_config_omit_lockfile_registry_resolved: "false",
    });
    for (const k of ["PULUMI_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_HOME", "CMS_ENDPOINT", "CMS_TOKEN"])
      delete env[k];
  }, STEP_TIMEOUT);

  afterAll(async () => {
    if (verdaccio?.pid !== undefined && verdaccio.exitCode === null && verdaccio.signalCode === null) {
      const exited = new Promise((resolve) => verdaccio!.once("exit", resolve));
      try {
        process.kill(-verdaccio.pid, "SIGKILL");
      } catch {
        // gone
      }
      await exited;
    }
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it(
    "installs pulumi-cms and the emulator by name, the contract at its exact version, every command; the quick start reaches a running cluster and the clean-up destroys it",
    async () => {
      const quickStart = bashBlockAfter(readme, "## Quick start: offline, against the emulator", "README.md");
      const cleanUp = bashBlockAfter(readme, "### Clean up", "README.md");
      const project = path.join(work, "start", "my-clusters");
      // The one change to the text: the emulator on a free port in place of 8787, which the
      // README's other run (test/e2e/docs/readme-offline.test.ts) may hold at the same moment.
      const port = await freePort();
      expect(quickStart).toContain("--token offline-token");
      expect(quickStart).toContain("http://127.0.0.1:8787");
      const script = quickStart
        .replace("--token offline-token", `--port ${port} --token offline-token`)
        .replace("http://127.0.0.1:8787", `http://127.0.0.1:${port}`);
      const sh = shell(path.join(work, "start"), env);
      try {
        await sh.type(script, STEP_TIMEOUT);
        expect(sh.output()).toMatch(/Cluster\s+dev\s+created/);

        // By name, as `npm install` records it, and every package of ours from the loopback registry.
        const manifest = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8"));
        expect(manifest.dependencies["pulumi-cms"]).toBe(`^${version(REPO_ROOT)}`);
        expect(manifest.devDependencies["@pulumi-cms/emulator"]).toBe(`^${version(EMULATOR_PACKAGE)}`);
        const lock = JSON.parse(fs.readFileSync(path.join(project, "package-lock.json"), "utf8"));
        const installed = (name: string) => lock.packages[`node_modules/${name}`] as { version: string; resolved: string };
        for (const [name, dir] of [
          ["pulumi-cms", REPO_ROOT],
          ["@pulumi-cms/emulator", EMULATOR_PACKAGE],
          ["@pulumi-cms/contract", CONTRACT_PACKAGE],
        ] as const) {
          expect(installed(name), name).toMatchObject({ version: version(dir) });
          expect(installed(name).resolved, name).toMatch(new RegExp(`^${registry.replace(/\./g, "\\.")}`));
        }
        // One contract, the one both name exactly: not a second copy nested under either.
        expect(Object.keys(lock.packages).filter((k) => k.endsWith("node_modules/@pulumi-cms/contract"))).toEqual([
          "node_modules/@pulumi-cms/contract",
        ]);
        for (const bin of ["cms-emulator", "cms-kubeconfig", "cms-recover", "cms-gitops", "pulumi-resource-cms"]) {
          expect(fs.existsSync(path.join(project, "node_modules/.bin", bin)), bin).toBe(true);
        }

        const token = /--token (\S+)/.exec(quickStart)![1];
        const list = await fetch(`http://127.0.0.1:${port}/v1/clusters`, { headers: { authorization: `Bearer ${token}` } });
        expect(((await list.json()) as { items: Array<{ status: string }> }).items).toMatchObject([{ status: "running" }]);

        await sh.type(cleanUp, STEP_TIMEOUT);
        expect(sh.output()).toMatch(/Cluster\s+dev\s+deleted/);
        expect(sh.output()).toContain("Stack 'dev' has been removed");
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
