/**
 * One failure, one message, with the real CLI against the emulator: a failed check, diff, read,
 * create, update and delete each shows its message once in the run's diagnostics, under the
 * resource (not echoed again under the stack), without stack frames, naming the fix.
 *
 * `@pulumi/pulumi`'s dynamic-provider host prints a failed check, diff, read or delete on its
 * stderr besides answering it, with the stack (see src/hosts/dynamic/host-echo.ts).
 *
 * And a function (lookup) of `pulumi-cms` or of `pulumi-cms/native` that fails in a TypeScript
 * program made as a user makes one, with the package installed from its tarball: one message under
 * the stack, not an unhandled exception with the package's stack frames or Node's warnings.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  type RunResult,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";
import { createNodeNativeProject } from "../../support/native";

const STEP_TIMEOUT = 5 * 60_000;

/** What a run shows about one failure: where its message appears, and any stack frame. */
function shown(result: RunResult, message: RegExp) {
  const at = result.output.indexOf("Diagnostics:");
  expect(at, result.output).toBeGreaterThanOrEqual(0);
  const diagnostics = result.output.slice(at);
  const global = new RegExp(message.source, "g");
  return {
    inDiagnostics: diagnostics.match(global)?.length ?? 0,
    // The host's echo reaches the CLI as a message of the stack resource.
    onStackRows: result.output.split("\n").filter((l) => /pulumi:pulumi:Stack/.test(l) && message.test(l)).length,
    frames: result.output.split("\n").filter((l) => /\bat .*\((\/|node:|<anonymous>)|\.(ts|js):\d+:\d+/.test(l)),
  };
}

function expectOnce(result: RunResult, message: RegExp): void {
  expect(result.code, result.output).not.toBe(0);
  const s = shown(result, message);
  expect(s.inDiagnostics, result.output).toBe(1);
  expect(s.onStackRows, result.output).toBe(0);
  expect(s.frames, result.output).toEqual([]);
}

describe.skipIf(lifecycleSkipped())("failures are shown once, without stack frames, naming the fix", () => {
  let emu: LifecycleEmulator;
  const projects: PulumiProject[] = [];
  let work: string;
  const READ_ONLY = "tok-failure-read-only";
  const DEGRADED = "tok-failure-degraded";

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "cms-failure-messages-"));
    await emu.control.addToken({ token: READ_ONLY, permissions: ["read"], scope: "*", plan: "enterprise" });
  }, STEP_TIMEOUT);
  afterAll(async () => {
    await emu.control.addToken({ token: DEGRADED, permissions: ["read", "write"], scope: "*", plan: "enterprise" });
    await teardown(projects, emu);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  async function project(name: string, token: string = emu.secretConfig()["cms:token"]) {
    const p = await createProject({ name, config: emu.stackConfig(), secretConfig: { "cms:token": token } });
    projects.push(p);
    return p;
  }

  it(
    "check: no endpoint configured, in preview and up",
    async () => {
      const p = await createProject({ name: "cms-failure-check", env: { CMS_ENDPOINT: "", CMS_TOKEN: "" } });
      projects.push(p);
      const missing = /No Cluster Management Service endpoint is configured: .*pulumi config set cms:endpoint <url>.*CMS_ENDPOINT/;
      expectOnce(await p.preview([], { allowFailure: true }), missing);
      expectOnce(await p.up([], { allowFailure: true }), missing);
    },
    STEP_TIMEOUT,
  );

  it(
    "create refused to a token the service does not know: said once, with the fix",
    async () => {
      const p = await project("cms-failure-unknown-token", "tok-failure-nobody-issued-this");
      const up = await p.up([], { allowFailure: true });
      expectOnce(up, /creating cluster "cluster-\w+" failed: .*401 unauthorized: The API token is invalid or expired\./);
      const diagnostics = up.output.slice(up.output.indexOf("Diagnostics:"));
      expect(diagnostics.match(/invalid|expired|rejected/g), diagnostics).toEqual(["invalid", "expired"]);
      expect(diagnostics).toContain(
        "Set the token with `pulumi config set --secret cms:token <token>` or the `CMS_TOKEN` environment variable.",
      );
      expect(up.output).not.toContain("tok-failure-nobody-issued-this");
    },
    STEP_TIMEOUT,
  );

  it(
    "create, update and delete refused to a read-only token",
    async () => {
      const p = await project("cms-failure-writes", READ_ONLY);
      const fix = "Set the token with `pulumi config set --secret cms:token <token>`";
      const create = await p.up([], { allowFailure: true });
      expectOnce(create, /creating cluster "cluster-\w+" failed: .*403/);
      expect(create.output).toContain(fix);

      await p.setConfig("cms:token", emu.secretConfig()["cms:token"], { secret: true });
      await p.up();
      await p.setConfig("cms:token", READ_ONLY, { secret: true });
      await p.setConfig("workers", 3);
      const update = await p.up([], { allowFailure: true });
      expectOnce(update, /updating cluster cls_\w+ failed: .*403/);
      expect(update.output).toContain(fix);

      const destroy = await p.destroy(["--run-program"], { allowFailure: true });
      expectOnce(destroy, /deleting cluster cls_\w+ failed: .*403/);
      expect(destroy.output).toContain(fix);

      await p.setConfig("cms:token", emu.secretConfig()["cms:token"], { secret: true });
      await p.destroy(["--run-program"]);
    },
    STEP_TIMEOUT,
  );

  it(
    "read: a plain refresh whose recorded token may no longer read",
    async () => {
      await emu.control.addToken({ token: DEGRADED, permissions: ["read", "write"], scope: "*", plan: "enterprise" });
      const p = await project("cms-failure-read", DEGRADED);
      await p.up();
      await emu.control.addToken({ token: DEGRADED, permissions: ["write"], scope: "*", plan: "enterprise" });
      const refresh = await p.refresh([], { allowFailure: true });
      expectOnce(refresh, /reading cluster cls_\w+ failed: .*403/);
      expect(refresh.output).toContain("Set the token with `pulumi config set --secret cms:token <token>`");
    },
    STEP_TIMEOUT,
  );

  it(
    "diff: a provider that fails while comparing (made to fail in its host process)",
    async () => {
      const p = await project("cms-failure-diff");
      await p.up();
      // Nothing the service answers makes diff fail (it compares the state with the program), so
      // the host process is made to compile a comparison that throws into the provider's bundle,
      // through Node's own preload hook (it fails the host, and so the test, if it finds none).
      const inject = path.join(work, "failing-diff.cjs");
      fs.writeFileSync(
        inject,
        `const Module = require("node:module");
const compile = Module.prototype._compile;
const COMPARISON = /function diffCluster\\([^)]*\\) \\{/;
Module.prototype._compile = function (content, filename, ...rest) {
  if (filename.endsWith("cluster-provider.bundle.js")) {
    if (!COMPARISON.test(content)) throw new Error("failing-diff.cjs: no diffCluster in " + filename);
    content = content.replace(COMPARISON, (m) => m + ' throw new Error("comparing failed on purpose: run pulumi up again");');
  }
  return compile.call(this, content, filename, ...rest);
};
`,
      );
      const preview = await p.preview([], { allowFailure: true, env: { NODE_OPTIONS: `--require ${inject}` } });
      expectOnce(preview, /comparing failed on purpose: run pulumi up again/);
    },
    STEP_TIMEOUT,
  );
});

const GHOST = "cls_0123456789abcdef";
const UNKNOWN_TOKEN = "tok-lookup-nobody-issued-this";

/**
 * The package's two faces of a function: `pulumi-cms` runs it in the program; `pulumi-cms/native`
 * asks the plugin, whose error the engine words as `invocation of cms:index:<function> returned an
 * error: ...`. Both owe the same: the cause and the fix once, nothing of an uncaught exception.
 */
const FUNCTION_FACES = [
  {
    module: "pulumi-cms",
    project: "cms-failure-lookup",
    missing: new RegExp(
      `getCluster: cluster ${GHOST} does not exist or is not visible to the token in use \\(GET answered 404 not_found\\): check the id, and that the token's scope covers it`,
    ),
    unauthorized:
      /getClusters: CMS API GET \/v1\/clusters failed with 401 unauthorized: The API token is invalid or expired\. Set the token with `pulumi config set --secret cms:token <token>`/,
  },
  {
    module: "pulumi-cms/native",
    project: "cms-failure-native-lookup",
    missing: new RegExp(
      `invocation of cms:index:getCluster returned an error: .*cluster ${GHOST} does not exist or is not visible to the token in use.*check the id`,
    ),
    unauthorized:
      /invocation of cms:index:getClusters returned an error: .*401 unauthorized: The API token is invalid or expired\. Set the token with `pulumi config set --secret cms:token <token>`/,
  },
];

describe.skipIf(lifecycleSkipped()).each(FUNCTION_FACES)(
  "a failing function of $module in a TypeScript program: one message, no stack frames, no warnings",
  (face) => {
    let emu: LifecycleEmulator;
    let p: PulumiProject;

    beforeAll(async () => {
      await findPulumi();
      emu = await startLifecycleEmulator();
      p = await createNodeNativeProject({
        name: face.project,
        files: {},
        program: "export {};\n",
        config: emu.stackConfig(),
        secretConfig: emu.secretConfig(),
      });
    }, STEP_TIMEOUT);
    afterAll(() => teardown([p], emu), STEP_TIMEOUT);

    /** Preview `program`: it fails with `message` once, and nothing of an uncaught exception, its frames or Node's warnings. */
    async function expectLookupFailure(program: string, message: RegExp) {
      fs.writeFileSync(path.join(p.dir, "index.ts"), program);
      const preview = await p.preview([], { allowFailure: true });
      expect(preview.code, preview.output).not.toBe(0);
      const s = shown(preview, message);
      expect(s.inDiagnostics, preview.output).toBe(1);
      expect(s.frames, preview.output).toEqual([]);
      expect(preview.output).not.toMatch(/unhandled exception|PromiseRejectionHandledWarning|<ref \*1>|Warning:|node_modules\//);
      return preview;
    }

    it(
      "getCluster of an id that does not exist, as an Output and awaited: the id said once, with what to check",
      async () => {
        for (const program of [
          `import * as cms from "${face.module}";\nexport const status = cms.getClusterOutput({ id: "${GHOST}" }).status;\n`,
          `import * as cms from "${face.module}";\nexport = async () => {\n  const c = await cms.getCluster({ id: "${GHOST}" });\n  return { status: c.status };\n};\n`,
        ]) {
          const preview = await expectLookupFailure(program, face.missing);
          const line = preview.output.split("\n").find((l) => face.missing.test(l)) ?? "";
          expect(line.split(GHOST).length - 1, line).toBe(1);
          expect(line).not.toMatch(/not found/);
        }
      },
      STEP_TIMEOUT,
    );

    it(
      "a token the service does not know: said once, with the fix, and never the token",
      async () => {
        const program = `import * as cms from "${face.module}";\nexport const count = cms.getClustersOutput({ connection: { token: "${UNKNOWN_TOKEN}" } }).clusters.length;\n`;
        const preview = await expectLookupFailure(program, face.unauthorized);
        expect(preview.output).not.toContain(UNKNOWN_TOKEN);
      },
      STEP_TIMEOUT,
    );
  },
);
