/**
 * The native plugin as users get it, for the tests of its face: `npm pack` of this checkout,
 * installed with npm into a fresh prefix (so `pulumi-resource-cms` is the package's `bin`, as
 * after `npm install -g pulumi-cms`), and projects in any language that find it on PATH; or
 * installed into a Node.js project, whose Pulumi.yaml names the plugin's directory.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findPulumi, makeWorkspace, openProject, type PulumiProject } from "../../scripts/lib/pulumi-driver.mjs";
import { type LifecycleEmulator, PINNED_PULUMI_VERSION, REPO_ROOT } from "../e2e/lifecycle/harness.mjs";
import { installedOnce, installProject, PULUMI_TEMPLATE_COMPILER_OPTIONS, providerTarball as tarball } from "./packages";

let installed: Promise<string> | undefined;

/** The `.bin` directory of the provider installed from its tarball; once per test run. */
export function nativePluginBin(): Promise<string> {
  installed ??= (async () => {
    const dir = await installedOnce(
      { dependencies: { "pulumi-cms": `file:${tarball()}`, "@pulumi/pulumi": PINNED_PULUMI_VERSION } },
      process.env,
      ["--ignore-scripts", "--omit=peer"],
    );
    const bin = path.join(dir, "node_modules", ".bin");
    if (!fs.existsSync(path.join(bin, "pulumi-resource-cms"))) throw new Error(`the tarball installed no pulumi-resource-cms in ${bin}`);
    return bin;
  })();
  return installed;
}

/** The examples on the native plugin, by directory under `examples/`. */
export type NativeExample = "go" | "yaml";

/** The command of an example's README that puts the plugin's directory in its Pulumi.yaml, in place of the placeholder. */
const README_PLUGIN_DIR_COMMAND = /^sed -i\.orig "s\|PULUMI_RESOURCE_CMS_DIR\|.*$/m;
/** The whole `plugins:` entry of the examples' Pulumi.yaml (the `$1` of the edit keeps nothing of it). */
const EXAMPLE_PLUGINS_ENTRY = /()^plugins:\n(?: {2,}.*\n)+/m;
/** The Go example's `replace` of the SDK's module, relative to the example (`../../sdk/go`). */
const EXAMPLE_SDK_REPLACE = /^(replace github\.com\/pulumi-cms\/pulumi-cms\/sdk\/go => )\.\.\/\.\.\/sdk\/go$/m;

/**
 * The files of `examples/<name>` a project needs (README.md stays behind), edited as its README
 * tells a user to: Pulumi.yaml names `pluginDir`, where the plugin is installed, in place of its
 * placeholder (the README's own `sed` command run on it), or, with
 * `pluginDir` null, has no `plugins:` entry at all (the engine installs the plugin from the
 * releases its SDK names); and, the example copied out of this repository, go.mod replaces the
 * SDK's module with this checkout's `sdk/go`. Throws when a file no longer holds what is edited,
 * so that the examples and these edits cannot drift apart unnoticed.
 */
export function nativeExampleFiles(name: NativeExample, pluginDir: string | null): Record<string, string> {
  const dir = path.join(REPO_ROOT, "examples", name);
  const files: Record<string, string> = {};
  for (const f of fs.readdirSync(dir)) if (f !== "README.md") files[f] = fs.readFileSync(path.join(dir, f), "utf8");
  const edit = (file: string, pattern: RegExp, to: string) => {
    if (!pattern.test(files[file] ?? "")) throw new Error(`examples/${name}/${file} no longer matches ${pattern}`);
    files[file] = files[file].replace(pattern, `$1${to}`);
  };
  if (pluginDir !== null) files["Pulumi.yaml"] = withPluginDir(name, files["Pulumi.yaml"], pluginDir);
  else edit("Pulumi.yaml", EXAMPLE_PLUGINS_ENTRY, "");
  if (name === "go") edit("go.mod", EXAMPLE_SDK_REPLACE, path.join(REPO_ROOT, "sdk", "go"));
  return files;
}

/** `pulumiYaml` after the README's own command ran on it, with `pluginDir` first on PATH as after `npm install -g`. */
function withPluginDir(name: NativeExample, pulumiYaml: string, pluginDir: string): string {
  const command = README_PLUGIN_DIR_COMMAND.exec(fs.readFileSync(path.join(REPO_ROOT, "examples", name, "README.md"), "utf8"))?.[0];
  if (!command) throw new Error(`examples/${name}/README.md no longer has the command matching ${README_PLUGIN_DIR_COMMAND}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-cms-example-${name}-`));
  try {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), pulumiYaml);
    execFileSync("bash", ["-euc", command], {
      cwd: dir,
      env: { ...process.env, PATH: [pluginDir, process.env.PATH].join(path.delimiter) },
    });
    const edited = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    if (!edited.includes(`path: ${pluginDir}  `))
      throw new Error(`examples/${name}/README.md's command did not put ${pluginDir} in Pulumi.yaml's path`);
    return edited;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Options of {@link createNativeProject}. */
export interface NativeProjectOptions {
  /** The project's files: at least `Pulumi.yaml`. */
  files: Record<string, string>;
  /** The project's name, as in its Pulumi.yaml. */
  name: string;
  stack?: string;
  config?: Record<string, string>;
  secretConfig?: Record<string, string>;
  /** Extra environment of every command. */
  env?: Record<string, string>;
}

/** A project of any language whose commands find `pulumi-resource-cms` on PATH. */
export async function createNativeProject(opts: NativeProjectOptions): Promise<PulumiProject> {
  const [bin, { binDir }] = await Promise.all([nativePluginBin(), findPulumi()]);
  const workspace = await makeWorkspace("pulumi-cms-native-");
  for (const [rel, text] of Object.entries(opts.files)) {
    fs.mkdirSync(path.dirname(path.join(workspace.project, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace.project, rel), text);
  }
  const project = await openProject({
    workspace,
    name: opts.name,
    stack: opts.stack ?? "dev",
    passphrase: "native-test-passphrase",
    env: { PATH: [binDir, bin, process.env.PATH ?? ""].join(path.delimiter), ...opts.env },
    echo: process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  await project.setConfigs(opts.config ?? {}, opts.secretConfig ?? {});
  return project;
}

/**
 * A Node.js project (TypeScript, type-checked by ts-node with the project's own `typescript`, as
 * `pulumi new typescript` makes them) with the package installed from its tarball into its own
 * node_modules, and a Pulumi.yaml naming that install's `node_modules/.bin` as the `cms`
 * plugin's directory, as the README tells. Nothing of the plugin is on PATH.
 */
export async function createNodeNativeProject(
  opts: NativeProjectOptions & {
    program: string /** Without Pulumi.yaml's `plugins` entry: the engine finds or fetches the plugin itself. */;
    noPluginsEntry?: boolean;
  },
): Promise<PulumiProject> {
  const dev = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).devDependencies as Record<string, string>;
  const workspace = await makeWorkspace("pulumi-cms-native-node-");
  await installProject(
    workspace.project,
    {
      name: opts.name,
      // What `npm init -y` writes: the program is named by Pulumi.yaml's `main`, as the README's is.
      main: "index.js",
      dependencies: { "pulumi-cms": `file:${tarball()}`, "@pulumi/pulumi": PINNED_PULUMI_VERSION },
      devDependencies: { typescript: dev.typescript, "@types/node": dev["@types/node"] },
    },
    process.env,
    ["--ignore-scripts"],
  );
  const files = {
    "Pulumi.yaml": `name: ${opts.name}\nruntime: nodejs\nmain: index.ts\n${opts.noPluginsEntry ? "" : "plugins:\n  providers:\n    - name: cms\n      path: node_modules/.bin\n"}`,
    "tsconfig.json": `${JSON.stringify({ compilerOptions: PULUMI_TEMPLATE_COMPILER_OPTIONS, files: ["index.ts"] }, null, 2)}\n`,
    "index.ts": opts.program,
    ...opts.files,
  };
  for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace.project, rel), text);
  const project = await openProject({
    workspace,
    name: opts.name,
    stack: opts.stack ?? "dev",
    passphrase: "native-test-passphrase",
    env: opts.env ?? {},
    echo: process.env.CMS_LIFECYCLE_ECHO === "1",
  });
  await project.setConfigs(opts.config ?? {}, opts.secretConfig ?? {});
  return project;
}

/** The native plugin's resource type. */
export const NATIVE_CLUSTER = "cms:index:Cluster";

/**
 * A YAML program's `variables:` entry `kc`: the exec kubeconfig of its resource `cluster`
 * (`cms:index:getKubeconfig` with `credential: exec`, whose user runs the plugin's own
 * `kubeconfig exec-credential`), read as `${kc.kubeconfig}`; `options`, the invoke's options as
 * YAML lines indented under it, if any.
 */
export function execKubeconfigVariable(options = ""): string {
  return `variables:
  kc:
    fn::invoke:
      function: cms:index:getKubeconfig
      arguments:
        clusterId: \${cluster.id}
        credential: exec
${options}`;
}

/** A running cluster made outside Pulumi (as in the console), of 1 control plane and 2 `medium` workers, for `pulumi import`: its id. */
export async function outsideCluster(emu: LifecycleEmulator, name: string): Promise<string> {
  const created = await emu.api("POST", "/v1/clusters", { name, control_planes: 1, workers: 2, node_size: "medium" });
  if (created.status !== 201) throw new Error(`POST /v1/clusters answered ${created.status}: ${created.text}`);
  const id = created.body.id as string;
  await emu.waitForCluster(id, (c) => c?.status === "running");
  return id;
}

/** The engine's step ops of the native Clusters in a run, in order (`update`, `create-replacement`, ...). */
export function clusterSteps(run: { steps: Array<{ kind: string; op: string; type: string }> }): string[] {
  return run.steps.filter((s) => s.kind === "outputs" && s.type === NATIVE_CLUSTER).map((s) => s.op);
}

/** The Cluster's inputs a program can give, each as a secret in the secrets tests; `connection.*` too. */
export const CLUSTER_INPUTS = ["name", "controlPlanes", "workers", "nodeSize", "phase", "infraId"] as const;

/** True when `bag` holds the value at `path` encrypted (`ciphertext`), itself or inside an encrypted parent. */
function encryptedAt(bag: unknown, path: readonly string[]): boolean {
  let at = bag as Record<string, unknown> | undefined;
  for (const key of path) {
    if (at === null || typeof at !== "object") return false;
    if ("ciphertext" in at) return true;
    at = at[key] as Record<string, unknown> | undefined;
  }
  return at !== null && typeof at === "object" && "ciphertext" in at;
}

/**
 * What breaks "every input given as a secret stays secret" in a stack of one native Cluster: each
 * of `plain` (the values given) found in `pulumi stack export` or in `pulumi stack output --json`
 * (without `--show-secrets`), and each input, `connection.*` and the outputs computed from them
 * (`nodeCount`) stored without encryption. Empty when all is well.
 */
export async function secretBreaches(project: PulumiProject, plain: readonly string[]): Promise<string[]> {
  const breaches: string[] = [];
  const { text, resources } = await project.exportStack();
  const outputs = JSON.stringify(await project.outputs());
  for (const value of plain) {
    if (text.includes(value)) breaches.push(`pulumi stack export shows ${value}`);
    if (outputs.includes(value)) breaches.push(`pulumi stack output shows ${value}`);
  }
  const clusters = resources.filter((r) => r.type === NATIVE_CLUSTER);
  if (clusters.length !== 1) breaches.push(`${clusters.length} clusters in the state, not 1`);
  for (const cluster of clusters) {
    const paths = [...CLUSTER_INPUTS.map((k) => [k]), ["connection", "endpoint"], ["connection", "token"]];
    for (const p of paths) if (!encryptedAt(cluster.inputs, p)) breaches.push(`inputs.${p.join(".")} is not encrypted`);
    for (const p of [...paths, ["nodeCount"], ["kubeconfig"]]) {
      if (!encryptedAt(cluster.outputs, p)) breaches.push(`outputs.${p.join(".")} is not encrypted`);
    }
  }
  return breaches;
}

/** Each of `plain` that `text` (a command's output) shows. */
export function shown(text: string, plain: readonly string[]): string[] {
  return plain.filter((v) => text.includes(v));
}

/** A value of `pulumi stack export --show-secrets`, its secrets decoded (they show as `{ <signature>, plaintext: <JSON> }`). */
function decoded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decoded);
  if (value === null || typeof value !== "object") return value;
  const bag = value as Record<string, unknown>;
  if (typeof bag.plaintext === "string") return decoded(JSON.parse(bag.plaintext));
  return Object.fromEntries(Object.entries(bag).map(([k, v]) => [k, decoded(v)]));
}

/** The stack's one native Cluster as `pulumi stack export --show-secrets` shows it, secrets decoded. */
export async function revealedCluster(
  project: PulumiProject,
): Promise<{ inputs: Record<string, unknown>; outputs: Record<string, unknown> }> {
  const state = JSON.parse((await project.run(["stack", "export", "--show-secrets", "--stack", project.stack])).stdout);
  const cluster = state.deployment.resources.find((r: { type: string }) => r.type === NATIVE_CLUSTER);
  return { inputs: decoded(cluster.inputs) as Record<string, unknown>, outputs: decoded(cluster.outputs) as Record<string, unknown> };
}
