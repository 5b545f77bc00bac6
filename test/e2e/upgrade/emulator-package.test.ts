/**
 * The provider and the emulator as two packages, installed from their tarballs as users install
 * them: the provider brings no emulator code or dependency; the emulator runs on its own; the
 * deprecated `pulumi-cms/emulator` re-exports the emulator's package with one warning, or says
 * what to install.
 */
import { execFile as execFileCb, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PINNED_PULUMI_VERSION } from "../lifecycle/harness.mjs";
import { EMULATOR_PACKAGE, installProject, packTarball, workDir } from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 5 * 60_000;
const NPM_ARGS = ["--ignore-scripts", "--prefer-offline"];

/** `node -e script` in `cwd`: its exit code, stdout and stderr. */
async function node(cwd: string, script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFile(process.execPath, ["-e", script], { cwd });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("the provider and the emulator, installed from their tarballs", () => {
  let work: string;
  let provider: string;
  let emulator: string;

  beforeAll(() => {
    work = workDir("two-packages");
    provider = packTarball(work);
    emulator = packTarball(work, EMULATOR_PACKAGE);
  }, STEP_TIMEOUT);
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it(
    "`npm install pulumi-cms @pulumi/pulumi` installs no emulator code or dependency; `pulumi-cms/emulator` then says what to install",
    async () => {
      const dir = await installProject(
        path.join(work, "provider-only"),
        { dependencies: { "pulumi-cms": `file:${provider}`, "@pulumi/pulumi": PINNED_PULUMI_VERSION } },
        process.env,
        NPM_ARGS,
      );
      const modules = path.join(dir, "node_modules");
      // ajv is the provider's own: it checks every answer against the wire contract.
      for (const absent of ["fastify", "@pulumi-cms/emulator", ".bin/cms-emulator", ".bin/cms-ensure-kubernetes"]) {
        expect(fs.existsSync(path.join(modules, absent)), absent).toBe(false);
      }
      const shipped = fs.readdirSync(path.join(modules, "pulumi-cms"), { recursive: true }) as string[];
      // The package's own commands (its `bin`) are the only entry points it ships.
      const bins = Object.values(
        JSON.parse(fs.readFileSync(path.join(modules, "pulumi-cms", "package.json"), "utf8")).bin as Record<string, string>,
      );
      expect(bins).toContain("dist/kubernetes/cli.js");
      expect(shipped.filter((f) => /(^|\/)(server|cli|worker)\.js$/.test(f) && !bins.includes(f))).toEqual([]);
      expect(shipped.filter((f) => f.startsWith("scripts"))).toEqual([]);

      const missing = await node(dir, 'require("pulumi-cms/emulator")');
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain(
        "pulumi-cms/emulator has moved to its own package, @pulumi-cms/emulator, which is not installed. Install it with `npm install --save-dev @pulumi-cms/emulator`",
      );
      // The provider itself loads without the emulator.
      expect((await node(dir, 'console.log(typeof require("pulumi-cms").Cluster)')).stdout.trim()).toBe("function");
    },
    STEP_TIMEOUT,
  );

  it(
    "with @pulumi-cms/emulator installed too, `pulumi-cms/emulator` is that package, with one deprecation warning naming it",
    async () => {
      const dir = await installProject(
        path.join(work, "both"),
        {
          dependencies: { "pulumi-cms": `file:${provider}`, "@pulumi/pulumi": PINNED_PULUMI_VERSION },
          devDependencies: { "@pulumi-cms/emulator": `file:${emulator}` },
        },
        process.env,
        NPM_ARGS,
      );
      const cjs = await node(
        dir,
        `const old = require("pulumi-cms/emulator"); require("pulumi-cms/emulator");
         const moved = require("@pulumi-cms/emulator");
         console.log(old.startEmulator === moved.startEmulator && old.ManualClock === moved.ManualClock);`,
      );
      expect(cjs.code).toBe(0);
      expect(cjs.stdout.trim()).toBe("true");
      const warnings = cjs.stderr.split("\n").filter((l) => l.includes("DeprecationWarning"));
      expect(warnings).toEqual([
        expect.stringMatching(
          /\[PULUMI_CMS_EMULATOR_MOVED\] DeprecationWarning: pulumi-cms\/emulator is deprecated: import from "@pulumi-cms\/emulator"/,
        ),
      ]);
    },
    STEP_TIMEOUT,
  );

  it(
    "the emulator's tarball alone, in an empty directory: `npx cms-emulator` serves the API, without the provider or Pulumi",
    async () => {
      const dir = await installProject(
        path.join(work, "emulator-only"),
        { devDependencies: { "@pulumi-cms/emulator": `file:${emulator}` } },
        process.env,
        NPM_ARGS,
      );
      for (const absent of ["pulumi-cms", "@pulumi/pulumi"])
        expect(fs.existsSync(path.join(dir, "node_modules", absent)), absent).toBe(false);
      const token = "tok-emulator-alone-0123";
      const child = spawn("npx", ["cms-emulator", "--port", "0", "--token", token], {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      try {
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        const url = await new Promise<string>((resolve, reject) => {
          const seen = () => {
            const m = /^cms-emulator listening on (http:\/\/\S+)/.exec(out);
            if (m) resolve(m[1]);
          };
          child.stdout.on("data", seen);
          child.on("exit", (code) => reject(new Error(`cms-emulator exited with ${code}: ${out}`)));
        });
        const res = await fetch(`${url}/v1/clusters`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ items: [] });
      } finally {
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
      }
    },
    STEP_TIMEOUT,
  );
});
