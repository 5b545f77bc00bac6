/**
 * The native plugin as the package ships it (scripts/bundle.mjs, `npm run build`): the bin
 * `dist/plugin/pulumi-resource-cms.js`, which turns Node's compile cache on and loads
 * `dist/plugin/bundle.js`, the plugin and every module it loads in one file. test/e2e/native runs it
 * under the real CLI from the tarball; here, what a bundle alone can get wrong.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PULUMI_GRPC_MODULES, type PulumiGrpc, pulumiGrpc, usePulumiGrpc } from "../../../src/hosts/pulumi-grpc";
import { REPO_ROOT } from "../../e2e/lifecycle/harness.mjs";

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string; bin: Record<string, string> };
const PLUGIN = path.join(REPO_ROOT, pkg.bin["pulumi-resource-cms"]);
const BUNDLE = path.join(path.dirname(PLUGIN), "bundle.js");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Start the bundled plugin as the engine does (an engine address as its argument) and read the port it prints. */
async function startPlugin(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const child = spawn(PLUGIN, ["127.0.0.1:9"], { stdio: ["ignore", "pipe", "pipe"], env });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n");
      if (line.length > 1) resolve(Number(line[0]));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the plugin exited (${code}) before printing its port: ${err}`)));
  });
}

describe("the bundled native plugin", () => {
  it("is the package's pulumi-resource-cms bin, an executable Node.js script that loads the bundle beside it", () => {
    expect(path.relative(REPO_ROOT, PLUGIN)).toBe(path.join("dist", "plugin", "pulumi-resource-cms.js"));
    const bin = fs.readFileSync(PLUGIN, "utf8");
    expect(bin).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(bin).toContain('require("./bundle.js")');
    expect(fs.statSync(PLUGIN).mode & 0o111).not.toBe(0);
  });

  it("keeps what it compiled in Node's compile cache once it serves, for the next command's plugin", async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cms-plugin-cache-"));
    try {
      const { NODE_DISABLE_COMPILE_CACHE: _off, ...env } = process.env;
      await startPlugin({ ...env, NODE_COMPILE_CACHE: cache });
      // Saved right after the port is printed: wait for the file, bounded. Node writes a temporary
      // file and renames it, so an entry listed may be gone when it is looked at.
      const files = () =>
        fs
          .readdirSync(cache, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && (fs.statSync(path.join(e.parentPath, e.name), { throwIfNoEntry: false })?.size ?? 0) > 0);
      const deadline = Date.now() + 10_000;
      while (files().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(files().length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it("serves the engine's protocol and tells the package's own version (read beside the bundle)", async () => {
    const port = await startPlugin();
    const { grpc, providerService, empty } = pulumiGrpc();
    const client = new providerService.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const info = await new Promise<{ getVersion(): string }>((resolve, reject) =>
        client.getPluginInfo(new empty.Empty(), (e: Error | null, r: { getVersion(): string }) => (e ? reject(e) : resolve(r))),
      );
      expect(info.getVersion()).toBe(pkg.version);
    } finally {
      client.close();
    }
  });

  it("answers the engine's Handshake with what Configure answers, so the engine has no reason to warn", async () => {
    const port = await startPlugin();
    const { grpc, providerService, provider: proto, struct } = pulumiGrpc();
    const client = new providerService.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = (method: string, req: unknown) =>
      new Promise<any>((resolve, reject) => client[method](req, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r))));
    try {
      const hello = await call(
        "handshake",
        new proto.ProviderHandshakeRequest()
          .setEngineAddress("127.0.0.1:9")
          .setRootDirectory(REPO_ROOT)
          .setProgramDirectory(REPO_ROOT)
          .setConfigureWithUrn(true)
          .setSupportsViews(true)
          .setInvokeWithPreview(true),
      );
      const configured = await call(
        "configure",
        new proto.ConfigureRequest()
          .setArgs(struct.Struct.fromJavaScript({ endpoint: "http://127.0.0.1:1", token: "t" }))
          .setAcceptsecrets(false),
      );
      expect(hello.toObject()).toEqual({
        acceptSecrets: true,
        acceptResources: false,
        acceptOutputs: false,
        supportsAutonamingConfiguration: false,
        acceptsByteString: false,
        acceptsOutputsInInvoke: false,
        acceptsOutputsInCall: false,
        acceptsOutputsInCheck: false,
      });
      expect({
        acceptSecrets: configured.getAcceptsecrets(),
        acceptResources: configured.getAcceptresources(),
        acceptOutputs: configured.getAcceptoutputs(),
      }).toEqual({
        acceptSecrets: hello.getAcceptSecrets(),
        acceptResources: hello.getAcceptResources(),
        acceptOutputs: hello.getAcceptOutputs(),
      });
    } finally {
      client.close();
    }
  });

  it("is the executable's command line too: --version, --help, and cms-kubeconfig and cms-recover as `kubeconfig` and `recover`", () => {
    const run = (args: string[]) => execFileSync(PLUGIN, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 10_000 });
    expect(run(["--version"])).toBe(`${pkg.version}\n`);
    expect(run(["version"])).toBe(`${pkg.version}\n`);
    for (const help of ["--help", "-h", "help"]) expect(run([help])).toContain("Usage: pulumi-resource-cms");
    expect(run(["kubeconfig", "--help"])).toContain("cms-kubeconfig exec-credential CLUSTER_ID");
    expect(run(["recover", "--help"])).toContain("Usage: cms-recover");
  });

  it("refuses a word it does not know, with its usage, rather than serving and waiting for an engine", () => {
    const result = spawnSync(PLUGIN, ["serve"], { encoding: "utf8", timeout: 10_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown command "serve"');
    expect(result.stderr).toContain("Usage: pulumi-resource-cms");
  });

  it("holds gRPC and protobuf once (the copies @pulumi/pulumi's stubs load) and no @pulumi/pulumi beyond its stubs", () => {
    const text = fs.readFileSync(BUNDLE, "utf8");
    for (const name of ["@grpc/grpc-js", "google-protobuf"]) {
      const copies = new Set([...text.matchAll(new RegExp(`^// (.*node_modules/${name})/`, "gm"))].map((m) => m[1]));
      expect(copies.size, name).toBe(1);
    }
    const fromPulumi = new Set([...text.matchAll(/^\/\/ (?:.*\/)?node_modules\/@pulumi\/pulumi\/(\S+)/gm)].map((m) => path.dirname(m[1])));
    expect([...fromPulumi]).toEqual(["proto"]);
  });
});

describe("the engine's protocol in a bundle", () => {
  it("is the modules the bundle hands over, once handed (pulumiGrpc loads nothing itself then)", () => {
    const handed = Object.fromEntries(Object.keys(PULUMI_GRPC_MODULES).map((name) => [name, { name }])) as unknown as PulumiGrpc;
    usePulumiGrpc(handed);
    expect(pulumiGrpc()).toBe(handed);
  });
});
