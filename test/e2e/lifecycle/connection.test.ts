/**
 * Where the provider, run by the real engine, finds the service. The stack-configuration path
 * (cms:endpoint + secret cms:token, winning over a wrong environment) is exercised by every step
 * of lifecycle.test.ts; here: the environment path (CMS_ENDPOINT / CMS_TOKEN, no stack config),
 * the message when neither is set, from `preview` as from `up`, and a token set without
 * `--secret`, which is refused before it can reach the state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import {
  createProject,
  findPulumi,
  killTree,
  lifecycleSkipped,
  startLifecycleEmulator,
  type LifecycleEmulator,
  type PulumiProject,
  teardown,
} from "./harness.mjs";
import { freePort } from "../../support/net";

const STEP_TIMEOUT = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("lifecycle connection: environment variables and missing settings", () => {
  let emu: LifecycleEmulator;
  let fromEnv: PulumiProject;
  let unset: PulumiProject;

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    fromEnv = await createProject({ name: "cms-lc-env", env: { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token } });
    unset = await createProject({ name: "cms-lc-unset" });
  }, STEP_TIMEOUT);

  const projects: PulumiProject[] = [];
  afterAll(() => teardown([fromEnv, unset, ...projects], emu), STEP_TIMEOUT);

  it(
    "CMS_ENDPOINT / CMS_TOKEN in the environment reach the provider when the stack has no cms config",
    async () => {
      const config = (await fromEnv.run(["config", "--json"])).stdout;
      expect(JSON.parse(config)).toEqual({});
      const up = await fromEnv.up();
      expect(up.output).toMatch(/Cluster\s+cluster\s+created/);
      const [c] = await emu.clusters();
      expect(c.status).toBe("running");
      expect(await fromEnv.outputs()).toMatchObject({ id: c.id, status: "running" });
      expect(up.output).not.toContain(emu.token);

      await fromEnv.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "with neither config nor environment, preview fails as up does, before any API call",
    async () => {
      await emu.control.resetRequestCounts();
      const preview = await unset.preview([], { allowFailure: true });
      expect(preview.code, preview.output).not.toBe(0);
      expect(preview.output).toContain("No Cluster Management Service endpoint is configured");
      expect(preview.output).toContain("pulumi config set cms:endpoint");
      expect(await emu.control.requestCounts()).toEqual({});
    },
    STEP_TIMEOUT,
  );

  it(
    "a cms:token set without --secret is refused once, naming the fix, and never reaches the state",
    async () => {
      const plain = await createProject({ name: "cms-lc-plain-token", config: { ...emu.stackConfig(), "cms:token": emu.token } });
      projects.push(plain);
      const message = "cms:token is set in the stack configuration in plain text";
      for (const run of [await plain.preview([], { allowFailure: true }), await plain.up([], { allowFailure: true })]) {
        expect(run.code, run.output).not.toBe(0);
        // Once in the run's diagnostics (the CLI's progress rows show a program's error as it happens too).
        const diagnostics = run.output.slice(run.output.indexOf("Diagnostics:"));
        expect(run.output).toContain("Diagnostics:");
        expect(diagnostics.split(message).length - 1, run.output).toBe(1);
        expect(run.output).toContain("`pulumi config set --secret cms:token <token>`");
        expect(run.output).toContain(`Pulumi.${plain.stack}.yaml holds the token unencrypted`);
        expect(run.output).not.toContain(emu.token);
        expect(run.output).not.toMatch(/^\s+at /m); // a refusal, not a crash: no stack frames
      }
      expect(await emu.clusters()).toEqual([]);
      expect((await plain.exportStack()).text).not.toContain(emu.token);

      // The fix the message names: the same value as a secret. The stack then works, and its state
      // holds the token only encrypted.
      await plain.setConfigs({}, { "cms:token": emu.token });
      const up = await plain.up();
      expect(up.output).toMatch(/Cluster\s+cluster\s+created/);
      expect(up.output).not.toContain(message);
      expect((await plain.exportStack()).text).not.toContain(emu.token);
      await plain.destroy();
      expect(await emu.clusters()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "an unreachable endpoint shows on the progress line with the next attempt, from the first failure on",
    async () => {
      // A port nothing listens on: connections are refused.
      const port = await freePort();
      const dead = await createProject({
        name: "cms-lc-unreachable",
        config: { "cms:endpoint": `http://127.0.0.1:${port}` },
        secretConfig: emu.secretConfig(),
      });
      projects.push(dead);
      let child: ChildProcess | undefined;
      let output = "";
      const line = new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); attempt 2 in \\d+(ms|s)`);
      const seen = new Promise<void>((ok) => {
        void dead.spawn(["up", "--yes", "--skip-preview"], {
          onSpawn: (c) => (child = c),
          onOutput: (d) => {
            output += d;
            if (line.test(output)) ok();
          },
        });
      });
      await seen;
      if (child?.pid) killTree(child.pid);
      expect(output).toMatch(/creating \(\d+s\)\s+cannot reach/);
    },
    STEP_TIMEOUT,
  );

  it(
    "with neither config nor environment, up fails naming every way to set the endpoint",
    async () => {
      const failed = await unset.up([], { allowFailure: true });
      expect(failed.code).not.toBe(0);
      expect(failed.output).toContain("pulumi config set cms:endpoint");
      expect(failed.output).toContain("CMS_ENDPOINT");
      expect(await emu.clusters()).toEqual([]);
      expect(await unset.clusterResources()).toHaveLength(0);
    },
    STEP_TIMEOUT,
  );
});
