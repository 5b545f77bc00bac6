/**
 * The provider as the engine runs it: serialized by `pulumi.dynamic.Resource` (through
 * `pulumi.runtime.serializeFunction`) in the program process, then loaded from that text in a
 * fresh process, which is what Pulumi's dynamic-provider host does. Checked for a program that
 * imports the repository's `dist` by path and for one that installs the package in
 * `node_modules`, against a running emulator; and what loading it does to the host process.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../../packages/emulator/src";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..", "..");
const DIST = join(ROOT, "dist");
const SECRET = "tok-explicit-must-not-be-serialized-42";

/** Build dist when it is missing or older than the sources it is made from. */
async function ensureBuilt(): Promise<void> {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  const built = join(DIST, "provider", "cluster-provider.js");
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(ROOT, "src"))) return;
  await run(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.json")], { cwd: ROOT });
  await run(process.execPath, [join(ROOT, "scripts", "gen-pinned-stubs.mjs")], { cwd: ROOT });
}

/** The program side: construct a Cluster under mocks and print the `__provider` it registers. */
const programScript = (pkg: string) => `
const pulumi = require("@pulumi/pulumi");
const seen = [];
pulumi.runtime.setMocks({
  newResource: (a) => {
    // The Clusters' provider; the auto-name seed's (registered first) is a provider of its own.
    if (a.type.endsWith(":Cluster")) seen.push(a.inputs.__provider);
    return { id: "cls_0000000000000001", state: {} };
  },
  call: () => ({}),
}, "proj", "dev", false);
const cms = require(${JSON.stringify(pkg)});
const a = new cms.Cluster("a", { controlPlanes: 1, workers: 1, nodeSize: "small",
  connection: { endpoint: "http://127.0.0.1:1", token: ${JSON.stringify(SECRET)} } });
const b = new cms.Cluster("b", { controlPlanes: 3, workers: 2, nodeSize: "large" });
Promise.all([a, b].map((r) => new Promise((res) => r.id.apply(res)))).then(() => {
  process.stdout.write(JSON.stringify(seen));
});
`;

/** The host side: load the text from a file, call handler(), then drive the provider. */
const hostScript = `
const provider = require(process.argv[2]).handler();
(async () => {
  await provider.configure({ config: { get: () => undefined, require: (k) => { throw new Error(k); } } });
  const checked = await provider.check({}, { controlPlanes: 1, workers: 2, nodeSize: "small",
    __urn: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::serialized" });
  if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
  const created = await provider.create(checked.inputs);
  const read = await provider.read(created.id, created.outs);
  await provider.delete(created.id, created.outs);
  const after = await provider.read(created.id, created.outs);
  process.stdout.write(JSON.stringify({ id: created.id, name: created.outs.name, status: created.outs.status,
    readId: read.id, readWorkers: read.props.workers, afterDelete: after }));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

let emu: RunningEmulator;
let work: string;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startEmulator({ port: 0, provisionSeconds: 0.2, scaleSeconds: 0.1, deleteSeconds: 0.1 });
  mkdirSync(join(ROOT, "tmp"), { recursive: true });
  work = mkdtempSync(join(ROOT, "tmp", "serialize-"));
}, 120_000);
afterAll(async () => {
  await emu?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Serialize in one fresh process (cwd = program dir), run in another, return both sides. */
async function roundTrip(programDir: string, pkg: string) {
  writeFileSync(join(programDir, "program.js"), programScript(pkg));
  const { stdout } = await run(process.execPath, ["program.js"], { cwd: programDir });
  const [textA, textB] = JSON.parse(stdout) as string[];
  writeFileSync(join(programDir, "provider.js"), textA);
  writeFileSync(join(programDir, "host.js"), hostScript);
  const env = { ...process.env, CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token };
  const host = await run(process.execPath, ["host.js", join(programDir, "provider.js")], { cwd: programDir, env });
  return { textA, textB, result: JSON.parse(host.stdout) };
}

describe("serialized provider", () => {
  it("runs from a program that imports the repository's dist by path", async () => {
    const dir = join(work, "by-path");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "by-path-program", private: true }));
    const { textA, textB, result } = await roundTrip(dir, join(DIST, "index.js"));
    expect(textA).toContain("exports.handler");
    expect(textA).toContain(JSON.stringify(join(DIST, "provider", "cluster-provider.js")));
    expect(textA).not.toContain(SECRET);
    expect(textA).not.toContain(emu.token);
    expect(textB).toBe(textA); // one text for every resource: small and stable
    expect(textA.length).toBeLessThan(4_000);
    expect(result).toMatchObject({
      id: expect.stringMatching(/^cls_/),
      name: expect.stringMatching(/^serialized-[a-z0-9]{7}$/),
      status: "running",
      readWorkers: 2,
      afterDelete: {},
    });
    expect(result.readId).toBe(result.id);
    expect((await emu.control.clusters()).some((c) => c.id === result.id)).toBe(false);
  }, 60_000);

  it("runs from a program that installs the package in node_modules", async () => {
    const dir = join(work, "installed");
    const pkgDir = join(dir, "node_modules", "pulumi-cms");
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "installed-program", private: true }));
    writeFileSync(join(pkgDir, "package.json"), readFileSync(join(ROOT, "package.json")));
    cpSync(DIST, join(pkgDir, "dist"), { recursive: true });
    const { textA, result } = await roundTrip(dir, "pulumi-cms");
    // A require of the package's entry, not a copy of its code or a path: the text is a few lines
    // (the state holds it twice per cluster) and does not depend on where the project lives.
    expect(textA).toContain('require("pulumi-cms/dist/provider/entry.js")');
    expect(textA.length).toBeLessThan(400);
    expect(textA).not.toContain(ROOT);
    expect(textA).not.toContain(SECRET);
    expect(result).toMatchObject({ status: "running", readWorkers: 2, afterDelete: {} });
  }, 60_000);
});

/**
 * A process started as the engine starts the host (`.../cmd/dynamic-provider/index.js <address>`)
 * that runs one operation through the entry, prints the compile cache directory in use, and
 * stays until it is ended with a signal, as the engine ends its host (Node then writes no cache
 * of its own accord).
 */
const fakeHostScript = `
const entry = require(process.env.CMS_ENTRY);
(async () => {
  // A read of a cluster the service does not have: it loads the client and calls the API.
  const read = await entry.read("cls_0000000000000404", {});
  process.stdout.write(JSON.stringify({ read, dir: require("node:module").getCompileCacheDir() ?? null }) + "\\n");
  setInterval(() => undefined, 1_000);
})();
`;

describe("loading the provider in the host", () => {
  const filesUnder = (dir: string): number =>
    existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0;

  /**
   * Run the fake host as `main` (a path under a new directory), end it with SIGINT once it has
   * answered. Returns the compile cache's directory; `stderr` collects what the host wrote there.
   */
  async function runAs(main: string, extraEnv: Record<string, string>, stderr: string[] = []): Promise<string | null> {
    const dir = join(work, `host-${Math.random().toString(36).slice(2, 8)}`);
    const script = join(dir, main);
    mkdirSync(join(script, ".."), { recursive: true });
    writeFileSync(script, fakeHostScript);
    const env: Record<string, string | undefined> = {
      ...process.env,
      CMS_ENTRY: join(DIST, "provider", "entry.js"),
      CMS_ENDPOINT: emu.url,
      CMS_TOKEN: emu.token,
      ...extraEnv,
    };
    delete env.NODE_COMPILE_CACHE;
    if (!("NODE_DISABLE_COMPILE_CACHE" in extraEnv)) delete env.NODE_DISABLE_COMPILE_CACHE;
    const child = spawn(process.execPath, [script, "127.0.0.1:9"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stderr.on("data", (d) => stderr.push(String(d)));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    let out = "";
    for await (const chunk of child.stdout) {
      out += String(chunk);
      if (out.includes("\n")) break;
    }
    child.kill("SIGINT");
    expect(await exited).toBe("SIGINT");
    const result = JSON.parse(out) as { read: object; dir: string | null };
    expect(result.read).toEqual({}); // the operation itself ran
    return result.dir;
  }

  it("turns Node's compile cache on inside the dynamic-provider host and saves it before the engine ends the host", async () => {
    const tmp = join(work, "tmpdir-on");
    mkdirSync(tmp);
    const dir = await runAs(join("cmd", "dynamic-provider", "index.js"), { TMPDIR: tmp });
    expect(dir?.startsWith(join(tmp, "node-compile-cache"))).toBe(true);
    // The next command's host compiles the provider's bundle (the provider, the client, axios and
    // its dependencies) from what the first one saved: Node's own account of its cache says so.
    const stderr: string[] = [];
    expect(await runAs(join("cmd", "dynamic-provider", "index.js"), { TMPDIR: tmp, NODE_DEBUG_NATIVE: "COMPILE_CACHE" }, stderr)).toBe(dir);
    const bundle = join(DIST, "provider", "cluster-provider.bundle.js");
    expect(stderr.join("")).toContain(`cache for ${bundle} was accepted`);
  }, 60_000);

  it("leaves it off when NODE_DISABLE_COMPILE_CACHE is set, and outside the host", async () => {
    const tmp = join(work, "tmpdir-off");
    mkdirSync(tmp);
    expect(await runAs(join("cmd", "dynamic-provider", "index.js"), { TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: "1" })).toBeNull();
    expect(await runAs("program.js", { TMPDIR: tmp })).toBeNull();
    expect(filesUnder(tmp)).toBe(0);
  }, 60_000);
});
