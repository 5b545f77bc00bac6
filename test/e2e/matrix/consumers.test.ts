/**
 * Consumers of the package as users write them, installed from its tarball (and the emulator's, as
 * a dev dependency) with the newest
 * `@pulumi/pulumi`: TypeScript CommonJS (classic `module: commonjs` and `nodenext`), TypeScript
 * ESM (`"type": "module"`, `nodenext`), each type-checked with TypeScript 5.x and 7.x and run;
 * plain JavaScript `require` and `import`; the `@pulumi-cms/emulator` package and its
 * `cms-emulator` bin. The programs start the emulator from its package and call it, so the
 * public names are exercised, not only resolved.
 */
import { execFile as execFileCb, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EMULATOR_PACKAGE,
  envWithNode,
  installProject,
  NEWEST_SDK,
  nodeBin,
  packTarball,
  PULUMI_TEMPLATE_COMPILER_OPTIONS,
  workDir,
} from "../../support/packages";
import { stillAnswering } from "../../support/docs";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 5 * 60_000;
const TYPESCRIPT = { "5": "5.9.3", "7": "7.0.2" } as const;

/** Type-checked source: public types and values from both entry points, used for real. */
const TS_SOURCE = `import * as cms from "pulumi-cms";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "@pulumi-cms/emulator";

const args: cms.ClusterArgs = { controlPlanes: 1, workers: 2, nodeSize: "small" };
const size: cms.NodeSize = args.nodeSize as cms.NodeSize;
const options: EmulatorOptions = { port: 0, provisionSeconds: 0 };

async function main(): Promise<void> {
  const emu: RunningEmulator = await startEmulator(options);
  try {
    const res = await fetch(\`\${emu.url}/v1/clusters\`, {
      method: "POST",
      headers: { authorization: \`Bearer \${emu.token}\`, "content-type": "application/json" },
      body: JSON.stringify({ name: "consumer", control_planes: args.controlPlanes, workers: args.workers, node_size: size }),
    });
    if (res.status !== 201) throw new Error(\`create answered \${res.status}\`);
    if (typeof cms.Cluster !== "function" || typeof cms.getClusterOutput !== "function" || typeof cms.kubernetesProvider !== "function") {
      throw new Error("missing public names");
    }
    console.log("consumer ok");
  } finally {
    await emu.close();
  }
}
void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`;

const JS_BODY = (load: string) => `${load}
(async () => {
  const emu = await startEmulator({ port: 0 });
  try {
    const res = await fetch(emu.url + "/v1/clusters", { headers: { authorization: "Bearer " + emu.token } });
    if (res.status !== 200 || typeof cms.Cluster !== "function") throw new Error("unexpected " + res.status);
    console.log("consumer ok");
  } finally {
    await emu.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe("consumers: the packed package from TypeScript 5 and 7 (CommonJS and ESM) and plain JavaScript", () => {
  let work: string;
  let installed: string;
  let env: NodeJS.ProcessEnv;
  const tsc: Record<string, string> = {};

  beforeAll(async () => {
    work = workDir("consumers");
    env = envWithNode(nodeBin(22));
    const tarball = packTarball(work);
    installed = await installProject(
      path.join(work, "app"),
      {
        name: "consumer",
        dependencies: { "pulumi-cms": `file:${tarball}`, "@pulumi/pulumi": NEWEST_SDK },
        devDependencies: { "@pulumi-cms/emulator": `file:${packTarball(work, EMULATOR_PACKAGE)}`, "@types/node": "^22" },
      },
      env,
    );
    // TypeScript 7 cannot sit beside @pulumi/pulumi (its optional peer range stops before 7, since
    // it drives the compiler API that 7 no longer has), so each TypeScript lives in its own tool
    // directory, as a globally installed `tsc` would.
    for (const [major, version] of Object.entries(TYPESCRIPT)) {
      const dir = await installProject(path.join(work, `typescript-${major}`), { dependencies: { typescript: version } }, env);
      tsc[major] = path.join(dir, "node_modules", ".bin", "tsc");
    }
  }, STEP_TIMEOUT);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  /** A consumer project beside the installed one (sharing its node_modules). */
  function project(name: string, files: Record<string, string>): string {
    const dir = path.join(work, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync(path.join(installed, "node_modules"), path.join(dir, "node_modules"), "dir");
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
    return dir;
  }

  /** Run a command; its output is in the error when it fails (a type error, a crash). */
  async function run(dir: string, file: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    try {
      return (await execFile(file, args, { cwd: dir, env: { ...env, ...extraEnv } })).stdout;
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      throw new Error(`${path.basename(file)} ${args.join(" ")} failed in ${path.basename(dir)}:\n${stdout}${stderr}`);
    }
  }

  const VARIANTS = [
    {
      name: "cjs-classic (Pulumi's TypeScript template: commonjs, moduleResolution node)",
      type: undefined,
      compilerOptions: {
        module: PULUMI_TEMPLATE_COMPILER_OPTIONS.module,
        moduleResolution: PULUMI_TEMPLATE_COMPILER_OPTIONS.moduleResolution,
      },
      only: "5",
    },
    { name: "cjs-nodenext", type: undefined, compilerOptions: { module: "nodenext" } },
    { name: "esm-nodenext", type: "module", compilerOptions: { module: "nodenext" } },
  ] as const;

  for (const major of Object.keys(TYPESCRIPT)) {
    for (const variant of VARIANTS) {
      if ("only" in variant && variant.only !== major) continue;
      it(
        `TypeScript ${major}, ${variant.name}: type-checks, compiles and runs`,
        async () => {
          const dir = project(`ts${major}-${variant.name.split(" ")[0]}`, {
            "package.json": JSON.stringify({
              name: `consumer-${variant.name}`,
              private: true,
              ...(variant.type ? { type: variant.type } : {}),
            }),
            "tsconfig.json": JSON.stringify({
              compilerOptions: {
                target: "ES2022",
                strict: true,
                outDir: "out",
                types: ["node"],
                skipLibCheck: false,
                ...variant.compilerOptions,
              },
              files: ["index.ts"],
            }),
            "index.ts": TS_SOURCE,
          });
          await run(dir, tsc[major], ["-p", "tsconfig.json"]);
          expect(await run(dir, "node", ["out/index.js"])).toContain("consumer ok");
        },
        STEP_TIMEOUT,
      );
    }
  }

  it(
    "plain JavaScript: require (CommonJS) and import (ESM)",
    async () => {
      const dir = project("js", {
        "index.cjs": JS_BODY(`const cms = require("pulumi-cms");\nconst { startEmulator } = require("@pulumi-cms/emulator");`),
        "index.mjs": JS_BODY(`import * as cms from "pulumi-cms";\nimport { startEmulator } from "@pulumi-cms/emulator";`),
      });
      expect(await run(dir, "node", ["index.cjs"])).toContain("consumer ok");
      expect(await run(dir, "node", ["index.mjs"])).toContain("consumer ok");
    },
    STEP_TIMEOUT,
  );

  it(
    "the cms-emulator bin starts, prints its listening line first and serves",
    async () => {
      const bin = path.join(installed, "node_modules", ".bin", "cms-emulator");
      const child = spawn(bin, ["--port", "0", "--token", "tok-consumer-0123"], { env, stdio: ["ignore", "pipe", "pipe"] });
      try {
        const url = await new Promise<string>((ok, fail) => {
          let out = "";
          child.stdout.on("data", (d) => {
            out += d;
            const m = /^cms-emulator listening on (http:\/\/\S+)/.exec(out);
            if (m) ok(m[1]);
          });
          child.on("exit", (code) => fail(new Error(`cms-emulator exited with ${code}: ${out}`)));
        });
        const res = await fetch(`${url}/v1/clusters`, { headers: { authorization: "Bearer tok-consumer-0123" } });
        expect(res.status).toBe(200);
      } finally {
        child.kill("SIGTERM");
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "started with npx, the emulator stops when npm is stopped (it does not keep the port)",
    async () => {
      const npm = spawn("npm", ["exec", "--", "cms-emulator", "--port", "0", "--token", "tok-consumer-0123"], {
        cwd: installed,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const url = await new Promise<string>((ok, fail) => {
        let out = "";
        npm.stdout.on("data", (d) => {
          out += d;
          const m = /cms-emulator listening on (http:\/\/\S+)/.exec(out);
          if (m) ok(m[1]);
        });
        npm.on("exit", (code) => fail(new Error(`npm exec exited with ${code}: ${out}`)));
      });
      expect((await fetch(`${url}/v1/clusters`, { headers: { authorization: "Bearer tok-consumer-0123" } })).status).toBe(200);
      npm.kill("SIGTERM"); // what `kill %1` does to `npx cms-emulator &` in a script
      expect(await stillAnswering(`${url}/v1/clusters`)).toBe(false);
    },
    STEP_TIMEOUT,
  );

  it(
    "the cms-ensure-kubernetes bin runs from the package: it takes binaries from KUBEBUILDER_ASSETS and prints their directory",
    async () => {
      const assets = workDir("cms-assets-");
      for (const name of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kwok"])
        fs.writeFileSync(path.join(assets, name), "", { mode: 0o755 });
      const bin = path.join(installed, "node_modules", ".bin", "cms-ensure-kubernetes");
      const out = await run(installed, bin, [], { KUBEBUILDER_ASSETS: assets });
      expect(out.trim().split("\n").at(-1)).toBe(assets);
      fs.rmSync(assets, { recursive: true, force: true });
    },
    STEP_TIMEOUT,
  );

  it(
    "the cms-recover bin answers --help",
    async () => {
      expect(await run(installed, path.join(installed, "node_modules", ".bin", "cms-recover"), ["--help"])).toMatch(/cms-recover/);
    },
    STEP_TIMEOUT,
  );

  it(
    "the cms-gitops bin answers --help",
    async () => {
      expect(await run(installed, path.join(installed, "node_modules", ".bin", "cms-gitops"), ["--help"])).toMatch(/cms-gitops merge/);
    },
    STEP_TIMEOUT,
  );
});
