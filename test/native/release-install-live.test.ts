/**
 * The release's linux-amd64 archive installed as Pulumi's CLI installs a plugin, then used by a
 * YAML program with no Node.js on PATH: a loopback HTTP server serves the release directory as a
 * release's downloads would; `pulumi plugin install resource cms VERSION --server URL` installs
 * it into a fresh PULUMI_HOME; and the engine installs it by itself for a program whose resource
 * names the server (`pluginDownloadURL`). Each `pulumi up` creates the cluster against the
 * emulator, and `pulumi destroy` leaves none.
 */
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, makeWorkspace, openProject, type PulumiProject } from "../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, REPO_ROOT, startLifecycleEmulator, teardown } from "../lifecycle/harness.mjs";
import { PLUGIN_DOWNLOAD_URL } from "../../src/hosts/native/schema";
import { createNodeNativeProject } from "../support/native";
import { releaseArchives } from "../support/packages";

const STEP = 240_000;
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;

let emu: LifecycleEmulator;
let server: http.Server;
let serverUrl: string;
/** Paths the loopback server was asked for. */
const requested: string[] = [];
/** A PATH of the Pulumi CLI and its language hosts only: no node, no pulumi-resource-cms. */
let cliOnly: string;
const projects: PulumiProject[] = [];

beforeAll(async () => {
  const [dir, { binDir }] = await Promise.all([releaseArchives(["linux-amd64"]), findPulumi()]);
  expect(fs.readdirSync(binDir).filter((f) => f === "node" || f.startsWith("pulumi-resource-cms"))).toEqual([]);
  cliOnly = binDir;
  server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).replace(/^\/+/, "");
    requested.push(`/${name}`);
    const file = path.join(dir, path.basename(name));
    if (!name || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/gzip", "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  emu = await startLifecycleEmulator({ provisionSeconds: 1 });
}, STEP);

afterAll(async () => {
  await teardown(projects, emu);
  await new Promise((resolve) => server?.close(resolve));
}, STEP);

/** A YAML project of one Cluster, in a fresh workspace (its own PULUMI_HOME, no plugin in it), run with `cliOnly` as PATH. */
async function yamlProject(name: string, options: string): Promise<PulumiProject> {
  const workspace = await makeWorkspace(`pulumi-cms-release-${name}-`);
  fs.writeFileSync(
    path.join(workspace.project, "Pulumi.yaml"),
    `name: ${name}
runtime: yaml
resources:
  cluster:
    type: cms:index:Cluster
    properties:
      controlPlanes: 1
      workers: 1
      nodeSize: small
${options}outputs:
  id: \${cluster.id}
  status: \${cluster.status}
`,
  );
  const project = await openProject({
    workspace,
    name,
    stack: "dev",
    passphrase: "release-test-passphrase",
    env: { PATH: cliOnly },
    echo: process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  projects.push(project);
  await project.setConfigs(emu.stackConfig(), emu.secretConfig());
  return project;
}

/** `pulumi up`, the cluster running in the emulator, `pulumi destroy`, none left. */
async function upAndDestroy(project: PulumiProject): Promise<void> {
  await project.up();
  const { id, status } = await project.outputs();
  expect(status).toBe("running");
  expect((await emu.clusters()).map((c) => c.id)).toContain(id);
  await project.destroy();
  expect((await emu.clusters()).map((c) => c.id)).not.toContain(id);
}

describe("the release's plugin archive, installed as Pulumi installs plugins, with no Node.js on PATH", () => {
  it(
    "`pulumi plugin install resource cms VERSION --server URL` fetches it from the server, and a YAML program's up and destroy run it",
    async () => {
      const project = await yamlProject("release-install", "");
      requested.length = 0;
      await project.run(["plugin", "install", "resource", "cms", VERSION, "--server", serverUrl]);
      expect(requested).toEqual([`/pulumi-resource-cms-v${VERSION}-linux-amd64.tar.gz`]);
      const installed = path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms");
      expect(fs.statSync(installed).isFile()).toBe(true);
      await upAndDestroy(project);
    },
    STEP,
  );

  it(
    "the engine installs it by itself for a program whose resource names the server (pluginDownloadURL)",
    async () => {
      const project = await yamlProject("release-auto", `    options:\n      version: ${VERSION}\n      pluginDownloadURL: ${serverUrl}\n`);
      // The test driver turns the CLI's automatic plugin acquisition off for every other test.
      project.env = { ...project.env, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false" };
      requested.length = 0;
      await upAndDestroy(project);
      expect(requested).toContain(`/pulumi-resource-cms-v${VERSION}-linux-amd64.tar.gz`);
      expect(fs.existsSync(path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms"))).toBe(true);
    },
    STEP,
  );

  it(
    "a pulumi-cms/native TypeScript program with no plugins entry: the engine fetches the plugin from the releases its SDK names",
    async () => {
      const project = await createNodeNativeProject({
        name: "release-node",
        noPluginsEntry: true,
        program: `import * as cms from "pulumi-cms/native";
const cluster = new cms.Cluster("cluster", { controlPlanes: 1, workers: 1, nodeSize: "small" });
export const id = cluster.id;
export const status = cluster.status;
`,
        files: {},
        config: emu.stackConfig(),
        secretConfig: emu.secretConfig(),
        env: {
          // The CLI and Node.js for the program; nothing of the plugin.
          PATH: [cliOnly, path.dirname(process.execPath)].join(path.delimiter),
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
          // The project's GitHub releases, as the schema names them, served from loopback.
          PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${PLUGIN_DOWNLOAD_URL.replace(/[.]/g, "\\.")}=${serverUrl}`,
        },
      });
      projects.push(project);
      requested.length = 0;
      await upAndDestroy(project);
      expect(requested).toContain(`/pulumi-resource-cms-v${VERSION}-linux-amd64.tar.gz`);
      expect(fs.existsSync(path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms"))).toBe(true);
    },
    STEP,
  );
});
