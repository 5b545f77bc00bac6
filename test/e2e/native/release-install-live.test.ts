/**
 * The release's linux-amd64 archive installed as Pulumi's CLI installs a plugin, then used by
 * YAML and Go programs with no Node.js on PATH: a loopback HTTP server serves the release directory
 * as a release's downloads would; `pulumi plugin install resource cms VERSION --server URL`
 * installs it into a fresh PULUMI_HOME; and the engine installs it by itself for a program whose
 * resource names the server (`pluginDownloadURL`), and for Go and TypeScript programs whose SDK
 * names the project's releases (mapped to the server). Each `pulumi up` creates the cluster against
 * the emulator, and `pulumi destroy` leaves none. In the YAML program's run the emulator backs its
 * cluster with a real control plane (`--kubernetes`, the one such cluster of the file), which
 * kubectl reaches through the exec kubeconfig of `cms:index:getKubeconfig`: a command of the
 * installed executable, still with no Node.js on PATH.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPulumi, makeWorkspace, openProject, type PulumiProject } from "../../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, REPO_ROOT, startLifecycleEmulator, teardown } from "../lifecycle/harness.mjs";
import { parse } from "yaml";
import { PLUGIN_DOWNLOAD_URL } from "../../../src/hosts/native/schema";
import { codeBlocks } from "../../support/docs";
import { kubectl, kubernetesUnavailable } from "../../support/kubernetes";
import { createNodeNativeProject, execKubeconfigVariable, nativeExampleFiles } from "../../support/native";
import { releaseArchives } from "../../support/packages";

const STEP = 240_000;
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
/** Why kubectl cannot reach a cluster here (no control plane outside CI), or undefined. */
const kubernetesSkip = kubernetesUnavailable();

let emu: LifecycleEmulator;
/** The emulator of the YAML auto-install run, backing its cluster with a real control plane; undefined when `kubernetesSkip`. */
let kubernetesEmu: LifecycleEmulator | undefined;
let server: http.Server;
let serverUrl: string;
/** The release's archives and their SHA256SUMS, as the server serves them. */
let archivesDir: string;
/** Paths the loopback server was asked for. */
const requested: string[] = [];
/** A PATH of the Pulumi CLI and its language hosts only: no node, no pulumi-resource-cms. */
let cliOnly: string;
const projects: PulumiProject[] = [];

beforeAll(async () => {
  const [dir, { binDir }] = await Promise.all([releaseArchives(["linux-amd64"]), findPulumi()]);
  expect(fs.readdirSync(binDir).filter((f) => f === "node" || f.startsWith("pulumi-resource-cms"))).toEqual([]);
  cliOnly = binDir;
  archivesDir = dir;
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
  if (!kubernetesSkip) kubernetesEmu = await startLifecycleEmulator({ kubernetes: {} });
}, STEP);

afterAll(async () => {
  await teardown(projects, emu);
  await kubernetesEmu?.close();
  await new Promise((resolve) => server?.close(resolve));
}, STEP);

/** The schema's download URL (the project's GitHub releases) mapped to the loopback server; no `$` at its end, or the CLI's match fails. */
const downloadUrlOverride = () => `^${PLUGIN_DOWNLOAD_URL.replace(/[.]/g, "\\.")}=${serverUrl}`;
/** Where the engine installs the release's plugin in a project's PULUMI_HOME. */
const installedPlugin = (project: PulumiProject) => path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms");

/**
 * A project of `files`, in a fresh workspace (its own PULUMI_HOME, no plugin in it), run with
 * `PATH` (default `cliOnly`: no node, no plugin) and `env`, configured for `emulator`.
 */
async function nodelessProject(
  name: string,
  files: Record<string, string>,
  { env = {}, emulator = emu }: { env?: Record<string, string>; emulator?: LifecycleEmulator } = {},
): Promise<PulumiProject> {
  const workspace = await makeWorkspace(`pulumi-cms-release-${name}-`);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace.project, file), text);
  const project = await openProject({
    workspace,
    name,
    stack: "dev",
    passphrase: "release-test-passphrase",
    env: { PATH: cliOnly, ...env },
    echo: process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  projects.push(project);
  await project.setConfigs(emulator.stackConfig(), emulator.secretConfig());
  return project;
}

/**
 * A YAML project of one Cluster ({@link nodelessProject}): `options` its resource options, `more`
 * the program's other top-level entries and `outputs` its outputs beside `id` and `status`.
 */
function yamlProject(
  name: string,
  {
    options = "",
    more = "",
    outputs = "",
    emulator = emu,
  }: { options?: string; more?: string; outputs?: string; emulator?: LifecycleEmulator } = {},
): Promise<PulumiProject> {
  const program = `name: ${name}
runtime: yaml
resources:
  cluster:
    type: cms:index:Cluster
    properties:
      controlPlanes: 1
      workers: 1
      nodeSize: small
${options}${more}outputs:
  id: \${cluster.id}
  status: \${cluster.status}
${outputs}`;
  return nodelessProject(name, { "Pulumi.yaml": program }, { emulator });
}

/**
 * {@link upAndDestroy} of a project whose engine installs the plugin by itself: it asked the
 * loopback server for the linux-amd64 archive and installed the plugin into the project's PULUMI_HOME.
 */
async function autoInstalledUpAndDestroy(project: PulumiProject, emulator = emu, whileUp?: (id: string) => Promise<void>): Promise<void> {
  requested.length = 0;
  await upAndDestroy(project, emulator, whileUp);
  expect(requested).toContain(`/pulumi-resource-cms-v${VERSION}-linux-amd64.tar.gz`);
  expect(fs.existsSync(installedPlugin(project))).toBe(true);
}

/** `pulumi up`, the cluster running in `emulator`, then `whileUp(id)`, `pulumi destroy`, none left. */
async function upAndDestroy(project: PulumiProject, emulator = emu, whileUp?: (id: string) => Promise<void>): Promise<void> {
  await project.up();
  const { id, status } = await project.outputs();
  expect(status).toBe("running");
  expect((await emulator.clusters()).map((c) => c.id)).toContain(id);
  await whileUp?.(id);
  await project.destroy();
  expect((await emulator.clusters()).map((c) => c.id)).not.toContain(id);
}

describe("the release's plugin archive, installed as Pulumi installs plugins, with no Node.js on PATH", () => {
  it(
    "`pulumi plugin install resource cms VERSION --server URL --checksum` fetches it from the server, refusing an archive whose digest is not SHA256SUMS', and a YAML program's up and destroy run it",
    async () => {
      const project = await yamlProject("release-install");
      const archive = `pulumi-resource-cms-v${VERSION}-linux-amd64.tar.gz`;
      const sum = fs
        .readFileSync(path.join(archivesDir, "SHA256SUMS"), "utf8")
        .split("\n")
        .find((line) => line.endsWith(` ${archive}`))
        ?.split(" ")[0];
      expect(sum).toMatch(/^[0-9a-f]{64}$/);
      const installed = path.join(project.home, "plugins", `resource-cms-v${VERSION}`, "pulumi-resource-cms");
      const install = (checksum: string) =>
        project.run(["plugin", "install", "resource", "cms", VERSION, "--server", serverUrl, "--checksum", checksum], {
          allowFailure: true,
        });
      const wrong = await install("0".repeat(64));
      expect(wrong.code, wrong.output).not.toBe(0);
      expect(wrong.output.toLowerCase()).toContain("checksum");
      expect(fs.existsSync(installed)).toBe(false);
      requested.length = 0;
      const right = await install(sum!);
      expect(right.code, right.output).toBe(0);
      expect(requested).toEqual([`/${archive}`]);
      expect(fs.statSync(installed).isFile()).toBe(true);
      await upAndDestroy(project);
    },
    STEP,
  );

  it(
    `the engine installs it by itself for a YAML program whose resources name the releases (version and pluginDownloadURL, as docs/installation-configuration.md shows), and kubectl reaches the cluster through the exec kubeconfig naming it${kubernetesSkip ? ` (kubectl skipped: ${kubernetesSkip})` : ""}`,
    async () => {
      const emulator = kubernetesEmu ?? emu;
      // The resource options docs/installation-configuration.md shows, as written; the releases they name mapped to the loopback server.
      const options = /^ {4}options:\n(?: {6}.*\n)+/m.exec(
        codeBlocks(fs.readFileSync(path.join(REPO_ROOT, "docs", "installation-configuration.md"), "utf8"), ["yaml"]).find((b) =>
          b.includes("pluginDownloadURL"),
        ) ?? "",
      )?.[0];
      expect(options).toBe(`    options:\n      version: ${VERSION}\n      pluginDownloadURL: ${PLUGIN_DOWNLOAD_URL}\n`);
      const project = await yamlProject("release-auto", {
        options: options!,
        // The exec kubeconfig as a stack output, as a user hands it to kubectl (`pulumi stack output kubeconfig --show-secrets`).
        more: execKubeconfigVariable(options!.replace(/^(?=.)/gm, "  ")),
        outputs: `  kubeconfig: \${kc.kubeconfig}\n`,
        emulator,
      });
      // The test driver turns the CLI's automatic plugin acquisition off for every other test.
      project.env = {
        ...project.env,
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: downloadUrlOverride(),
      };
      await autoInstalledUpAndDestroy(project, emulator, async (id) => {
        const kubeconfig = JSON.parse((await project.run(["stack", "output", "--json", "--show-secrets", "--stack", project.stack])).stdout)
          .kubeconfig as string;
        // The credential is the installed executable's own command, by absolute path; the token only in the
        // kubeconfig's exec environment, which the state holds encrypted.
        const { exec } = parse(kubeconfig).users[0].user;
        expect(exec.command).toBe(installedPlugin(project));
        expect(exec.args).toEqual(["kubeconfig", "exec-credential", id, "--endpoint", emulator.url]);
        expect((await project.exportStack()).text).not.toContain(emulator.token);
        if (kubernetesSkip) return;
        // kubectl runs that command with a PATH of the CLI only: no node for it to find.
        const seen = await kubectl(kubeconfig, ["get", "namespace", "default", "-o", "name"], undefined, { PATH: cliOnly });
        expect(seen).toMatchObject({ code: 0, stdout: "namespace/default\n", stderr: "" });
      });
    },
    STEP,
  );

  it(
    "a Go program (examples/go, compiled by the Go language host) with no plugins entry: the engine fetches the plugin from the releases its SDK names",
    async () => {
      const go = path.dirname(execFileSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).trim());
      // The Go toolchain's directory holds go and gofmt: nothing of Node.js for the program or the plugin.
      expect(fs.readdirSync(go).filter((f) => f === "node" || f.startsWith("pulumi-resource-cms"))).toEqual([]);
      const project = await nodelessProject("cms-go", nativeExampleFiles("go", null), {
        env: {
          PATH: [cliOnly, go].join(path.delimiter),
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
          PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: downloadUrlOverride(),
        },
      });
      await autoInstalledUpAndDestroy(project);
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
          PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: downloadUrlOverride(),
        },
      });
      projects.push(project);
      await autoInstalledUpAndDestroy(project);
    },
    STEP,
  );
});
