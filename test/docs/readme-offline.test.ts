/**
 * The README's "Try it offline against the emulator" block, run as written in a user's project
 * (the packed package installed with npm), in a fresh shell: a HOME of its own, the Pulumi CLI
 * and Node.js on PATH, nothing else of this machine's Pulumi.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, lifecycleSkipped, REPO_ROOT } from "../lifecycle/harness.mjs";
import { envWithNode, installProject, nodeBin, packTarball, workDir } from "../support/packages";
import { bashBlockAfter, stillAnswering } from "../support/docs";

const execFile = promisify(execFileCb);
const STEP_TIMEOUT = 6 * 60_000;

describe.skipIf(lifecycleSkipped())("README: try it offline against the emulator, pasted as written", () => {
  let work: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const { binDir } = await findPulumi();
    work = workDir("offline");
    const node = nodeBin(22);
    const pulumiVersion = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")).version;
    project = path.join(work, "my-project");
    await installProject(
      project,
      { name: "my-project", dependencies: { "pulumi-cms": `file:${packTarball(work)}`, "@pulumi/pulumi": pulumiVersion } },
      envWithNode(node),
    );
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: my-project\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(
      path.join(project, "index.js"),
      `const cms = require("pulumi-cms");\nconst c = new cms.Cluster("app", { controlPlanes: 1, workers: 2, nodeSize: "small" });\nexports.status = c.status;\n`,
    );
    fs.mkdirSync(path.join(work, "home"));
    env = envWithNode(`${binDir}${path.delimiter}${node}`, { HOME: path.join(work, "home"), PULUMI_SKIP_UPDATE_CHECK: "1" });
    for (const k of ["PULUMI_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_HOME", "CMS_ENDPOINT", "CMS_TOKEN"])
      delete env[k];
  }, STEP_TIMEOUT);
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it(
    "creates the cluster, destroys it, removes the stack and stops the emulator",
    async () => {
      const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
      const script = bashBlockAfter(readme, "## Try it offline against the emulator", "README.md");
      let output: string;
      try {
        const r = await execFile("bash", ["-eu", "-c", script], { cwd: project, env, maxBuffer: 64 * 1024 * 1024 });
        output = r.stdout + r.stderr;
      } catch (e) {
        const err = e as { stdout?: string; stderr?: string };
        throw new Error(`the README's block failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`);
      }
      expect(output).toMatch(/Cluster\s+app\s+created/);
      expect(output).toMatch(/Cluster\s+app\s+deleted/);
      // The emulator is gone: its port no longer answers.
      const port = /--port (\d+)/.exec(script)![1];
      expect(await stillAnswering(`http://127.0.0.1:${port}/v1/clusters`)).toBe(false);
    },
    STEP_TIMEOUT,
  );
});
