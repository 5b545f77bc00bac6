/**
 * The release's plugin executables (`scripts/release.mjs`, what `npm run release` runs after the
 * build), written from the built bundle once per test run (`releaseArchives`): the archives and their
 * SHA256SUMS; each archive's executable in its platform's format with the application injected;
 * and the linux-amd64 one run with no Node.js anywhere on PATH: `--version`, the plugin serving
 * the engine's protocol, and the exec credential and `recover` as its subcommands.
 *
 * It builds linux-amd64 only, as CI does; with CMS_RELEASE_PLATFORMS (`all`, or a list) it builds
 * and checks those, as the release does.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../../packages/emulator/src";
import { pulumiGrpc } from "../../../src/hosts/pulumi-grpc";
import { archiveName, TARGETS } from "../../../scripts/release.mjs";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { Api, waitForStatus } from "../../support/emulator";
import { releaseArchives } from "../../support/packages";

const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
const PLATFORMS = process.env.CMS_RELEASE_PLATFORMS || "linux-amd64";
/** linux-amd64, which these tests run, and whatever else CMS_RELEASE_PLATFORMS selects. */
const BUILT = [...new Set(["linux-amd64", ...(PLATFORMS === "all" ? Object.keys(TARGETS) : PLATFORMS.split(",").map((s) => s.trim()))])];
/** What Node.js looks for in its binary to know it carries an application, flipped to 1 by the injection. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

let dir: string;
let out: string;
/** The linux-amd64 executable, extracted. */
let exe: string;
/** A PATH with no node in it (and nothing else). */
let nodeless: string;
let emu: RunningEmulator;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "cms-release-test-"));
  out = await releaseArchives(BUILT);
  const extracted = path.join(dir, "linux-amd64");
  fs.mkdirSync(extracted);
  execFileSync("tar", ["-xzf", path.join(out, archiveName(VERSION, "linux-amd64")), "-C", extracted]);
  exe = path.join(extracted, "pulumi-resource-cms");
  nodeless = path.join(dir, "empty-bin");
  fs.mkdirSync(nodeless);
  emu = await startEmulator({ port: 0, provisionSeconds: 0.2, scaleSeconds: 0.2, deleteSeconds: 0.2, token: "release-token-000001" });
}, 300_000);

afterAll(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await emu?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment of a machine without Node.js: nothing but an empty PATH directory and HOME, plus `extra`. */
function nodelessEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: nodeless, HOME: dir, ...extra };
}

/** Run the executable with `args` in the environment of a machine without Node.js. */
function runExe(args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(exe, args, { env: nodelessEnv(extra), timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** The executable's format and machine, from its first bytes. */
function formatOf(file: string): string {
  const head = Buffer.alloc(4096);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) {
    return `ELF ${({ 62: "x86-64", 183: "aarch64" } as Record<number, string>)[head.readUInt16LE(18)] ?? head.readUInt16LE(18)}`;
  }
  if (head.readUInt32LE(0) === 0xfeedfacf) return `Mach-O ${head.readUInt32LE(4) === 0x01000007 ? "x86-64" : head.readUInt32LE(4)}`;
  if (head.toString("latin1", 0, 2) === "MZ") {
    const pe = head.readUInt32LE(0x3c);
    if (head.toString("latin1", pe, pe + 4) === "PE\0\0")
      return `PE ${head.readUInt16LE(pe + 4) === 0x8664 ? "x86-64" : head.readUInt16LE(pe + 4)}`;
  }
  return "unknown";
}

const EXPECTED_FORMAT: Record<string, string> = {
  "linux-amd64": "ELF x86-64",
  "linux-arm64": "ELF aarch64",
  "darwin-amd64": "Mach-O x86-64",
  "windows-amd64": "PE x86-64",
};

describe("the release archives", () => {
  it("are one per platform built, named as the Pulumi CLI asks a plugin server for them, each listed in SHA256SUMS with its digest", () => {
    const names = BUILT.map((t) => archiveName(VERSION, t)).sort();
    expect(fs.readdirSync(out).sort()).toEqual([...names, "SHA256SUMS"].sort());
    const lines = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trimEnd().split("\n");
    expect(lines.map((l) => l.split("  ")[1]).sort()).toEqual(names);
    for (const line of lines) {
      const [digest, name] = line.split("  ");
      expect(
        createHash("sha256")
          .update(fs.readFileSync(path.join(out, name)))
          .digest("hex"),
        name,
      ).toBe(digest);
    }
    // As users check them.
    execFileSync("sha256sum", ["--check", "--strict", "SHA256SUMS"], { cwd: out, stdio: "pipe" });
  });

  it("each holds its platform's executable (its format and machine, the application injected) with the licences", () => {
    for (const target of BUILT) {
      const into = path.join(dir, `check-${target}`);
      fs.mkdirSync(into);
      execFileSync("tar", ["-xzf", path.join(out, archiveName(VERSION, target)), "-C", into]);
      const { exe: name } = TARGETS[target];
      expect(fs.readdirSync(into).sort(), target).toEqual([name, "LICENSE", "THIRD-PARTY-NOTICES.md"].sort());
      const file = path.join(into, name);
      expect(formatOf(file), target).toBe(EXPECTED_FORMAT[target]);
      expect(fs.statSync(file).mode & 0o777, target).toBe(0o755);
      const bytes = fs.readFileSync(file);
      expect(
        bytes.toString("latin1", bytes.indexOf(SEA_FUSE) + SEA_FUSE.length, bytes.indexOf(SEA_FUSE) + SEA_FUSE.length + 2),
        target,
      ).toBe(":1");
      const notices = fs.readFileSync(path.join(into, "THIRD-PARTY-NOTICES.md"), "utf8");
      expect(notices).toContain("## @grpc/grpc-js ");
      expect(notices).toContain("## Node.js");
      fs.rmSync(into, { recursive: true, force: true });
    }
  });
});

describe("the linux-amd64 executable, with no Node.js on PATH", () => {
  it("has no node to find (the environment these tests run it in)", () => {
    expect(() => execFileSync("/bin/sh", ["-c", "command -v node"], { env: nodelessEnv(), stdio: "pipe" })).toThrow();
  });

  it("prints the package's version for --version and exits", async () => {
    expect(await runExe(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("serves the engine's protocol as the engine starts it: the port on stdout, GetPluginInfo and Handshake over gRPC", async () => {
    const child = spawn(exe, ["127.0.0.1:9"], { stdio: ["ignore", "pipe", "pipe"], env: nodelessEnv() });
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const port = await new Promise<number>((resolve, reject) => {
      let text = "";
      child.stdout.on("data", (d) => {
        text += d;
        if (text.includes("\n")) resolve(Number(text.split("\n")[0]));
      });
      child.on("exit", (code) => reject(new Error(`the plugin exited (${code}) before printing its port: ${stderr}`)));
    });
    const { grpc, providerService, provider: proto, empty } = pulumiGrpc();
    const client = new providerService.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = (method: string, req: unknown) =>
      new Promise<{ getVersion(): string; getAcceptSecrets(): boolean }>((resolve, reject) =>
        client[method](req, (e: Error | null, r: never) => (e ? reject(e) : resolve(r))),
      );
    try {
      expect((await call("getPluginInfo", new empty.Empty())).getVersion()).toBe(VERSION);
      expect((await call("handshake", new proto.ProviderHandshakeRequest().setEngineAddress("127.0.0.1:9"))).getAcceptSecrets()).toBe(true);
    } finally {
      client.close();
    }
    expect(stderr).toBe("");
  });

  it("runs the exec credential (`kubeconfig exec-credential`) and writes a kubeconfig that runs it from this executable (`kubeconfig save`)", async () => {
    const api = new Api(emu.url, emu.token);
    const created = await api.post("/v1/clusters", { name: "release-exec", control_planes: 1, workers: 1, node_size: "small" });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await waitForStatus(emu, id, "running");
    const token = /token: (\S+)/.exec((await api.get(`/v1/clusters/${id}/kubeconfig`)).text)?.[1];

    const credential = await runExe(["kubeconfig", "exec-credential", id, "--endpoint", emu.url], { CMS_TOKEN: emu.token });
    expect(credential).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(credential.stdout)).toMatchObject({ kind: "ExecCredential", status: { token } });

    const saved = await runExe(["kubeconfig", "save", id, "--endpoint", emu.url], { CMS_TOKEN: emu.token });
    expect(saved).toMatchObject({ code: 0, stderr: "" });
    expect(saved.stdout).not.toContain(emu.token);
    const exec = parse(saved.stdout).users[0].user.exec;
    expect(exec.command).toBe(exe);
    expect(exec.args).toEqual(["kubeconfig", "exec-credential", id, "--endpoint", emu.url]);
    // What kubectl does with it: run that command, here too without Node.js.
    const again = await new Promise<string>((resolve, reject) =>
      execFile(exec.command, exec.args, { env: nodelessEnv({ CMS_TOKEN: emu.token }) }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
    );
    expect(JSON.parse(again).status.token).toBe(token);
  });

  it("runs cms-recover as `recover`, which finds no pulumi here and says so", async () => {
    const help = await runExe(["recover", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: cms-recover");
    const run = await runExe(["recover", "--dry-run"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/^cms-recover: cannot run pulumi: /);
  });
});
