/**
 * `cms-kubeconfig`, the exec credential plugin of the kubeconfigs the package hands out, against
 * the real emulator: the ExecCredential carries the cluster's current credential (a rotation in
 * the console shows at the next call) with an expiry; its failures (no token, cluster gone,
 * forbidden, a refused recorded token) are one line on stderr with exit 1, and never print a
 * token; the kubeconfig for a stack names no path of this machine and runs from a project's
 * directory through the project's pulumi-cms (the built package: `npm run build` first).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../packages/emulator/src";
import { run, type Io } from "../../src/kubernetes/cli";
import { ENV_RECORDED_TOKEN, execKubeconfig, PROJECT_BOOTSTRAP } from "../../src/provider/exec-credential";
import { Api, waitForStatus, waitUntilGone } from "../support/emulator";

const ROOT = resolve(__dirname, "../..");
let emu: RunningEmulator;
let api: Api;
const READ_ONLY = "read-only-token-0001";
const NO_READ = "write-only-token-0001";

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    provisionSeconds: 0.2,
    scaleSeconds: 0.2,
    deleteSeconds: 0.2,
    token: "full-token-00000001",
    tokens: [
      { token: READ_ONLY, permissions: ["read"], scope: "*", plan: "enterprise" },
      { token: NO_READ, permissions: ["write"], scope: "*", plan: "enterprise" },
    ],
  });
  api = new Api(emu.url, emu.token);
});
afterAll(async () => {
  await emu?.close();
});

async function runningCluster(name: string): Promise<string> {
  const res = await api.post("/v1/clusters", { name, control_planes: 1, workers: 1, node_size: "small" });
  expect(res.status).toBe(201);
  await waitForStatus(emu, res.body.id, "running");
  return res.body.id;
}

async function kubeconfigToken(id: string): Promise<string> {
  const text = (await api.get(`/v1/clusters/${id}/kubeconfig`)).text;
  return /token: (\S+)/.exec(text)?.[1] ?? "";
}

/** `cms-kubeconfig ARGS` in this process, with `env` as its whole environment. */
async function cmsKubeconfig(args: string[], env: Record<string, string | undefined>) {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    env,
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

describe("cms-kubeconfig exec-credential", () => {
  it("prints the cluster's current credential as an ExecCredential with an expiry, and the new one after a rotation", async () => {
    const id = await runningCluster("exec-rotate");
    const env = { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token };
    const first = await cmsKubeconfig(["exec-credential", id], env);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    const credential = JSON.parse(first.stdout);
    expect(credential).toMatchObject({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: await kubeconfigToken(id) },
    });
    const expires = Date.parse(credential.status.expirationTimestamp);
    expect(expires).toBeGreaterThan(Date.now() + 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 10 * 60_000);

    await emu.control.rotateKubeconfig(id);
    const second = JSON.parse((await cmsKubeconfig(["exec-credential", id], env)).stdout);
    expect(second.status.token).not.toBe(credential.status.token);
    expect(second.status.token).toBe(await kubeconfigToken(id));
  });

  it("takes the endpoint from --endpoint before CMS_ENDPOINT", async () => {
    const id = await runningCluster("exec-endpoint");
    const out = await cmsKubeconfig(["exec-credential", id, "--endpoint", `${emu.url}/v1/`], {
      CMS_ENDPOINT: "http://127.0.0.1:9",
      CMS_TOKEN: emu.token,
    });
    expect(out).toMatchObject({ code: 0, stderr: "" });
  });

  it("uses the token recorded in the kubeconfig, and CMS_TOKEN when the service refuses that one (401)", async () => {
    const id = await runningCluster("exec-recorded");
    const recorded = await cmsKubeconfig(["exec-credential", id, "--endpoint", emu.url], { [ENV_RECORDED_TOKEN]: READ_ONLY });
    expect(recorded.code).toBe(0);
    const fallback = await cmsKubeconfig(["exec-credential", id, "--endpoint", emu.url], {
      [ENV_RECORDED_TOKEN]: "revoked-token-00000001",
      CMS_TOKEN: READ_ONLY,
    });
    expect(fallback).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(fallback.stdout).status.token).toBe(await kubeconfigToken(id));
  });

  it("fails with one line naming the missing setting when there is no token or no endpoint, before any call", async () => {
    const noToken = await cmsKubeconfig(["exec-credential", "cls_0123456789abcdef", "--endpoint", emu.url], {});
    expect(noToken).toMatchObject({ code: 1, stdout: "" });
    expect(noToken.stderr).toMatch(/^cms-kubeconfig: no Cluster Management Service token: set CMS_TOKEN .*\n$/);
    // kubectl's saved kubeconfig records no token: the message leads with what that user does.
    expect(noToken.stderr).toContain(
      "set CMS_TOKEN in the environment of kubectl at each use (for the stack's Kubernetes provider, in pulumi's",
    );
    const noEndpoint = await cmsKubeconfig(["exec-credential", "cls_0123456789abcdef"], { CMS_TOKEN: emu.token });
    expect(noEndpoint).toMatchObject({ code: 1, stdout: "" });
    expect(noEndpoint.stderr).toContain("no Cluster Management Service endpoint");
    expect(noEndpoint.stderr).toContain("CMS_ENDPOINT");
  });

  it("fails naming the cluster when it is gone, the token when it is refused or lacks `read`, and never prints a token", async () => {
    const id = await runningCluster("exec-gone");
    const env = { CMS_ENDPOINT: emu.url };
    const forbidden = await cmsKubeconfig(["exec-credential", id], { ...env, CMS_TOKEN: NO_READ });
    expect(forbidden).toMatchObject({ code: 1, stdout: "" });
    expect(forbidden.stderr).toContain(`cluster ${id}`);
    expect(forbidden.stderr).toContain("403");
    const refused = await cmsKubeconfig(["exec-credential", id], { ...env, CMS_TOKEN: "not-a-token-000001" });
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toContain("401");
    expect((await api.del(`/v1/clusters/${id}`)).status).toBe(204);
    await waitUntilGone(emu, id);
    const gone = await cmsKubeconfig(["exec-credential", id], { ...env, CMS_TOKEN: emu.token });
    expect(gone).toMatchObject({ code: 1, stdout: "" });
    expect(gone.stderr).toContain(`cluster ${id}`);
    expect(gone.stderr).toContain("404");
    for (const out of [forbidden, refused, gone]) {
      expect(out.stderr.trim().split("\n")).toHaveLength(1);
      for (const token of [emu.token, NO_READ, "not-a-token-000001"]) expect(out.stderr).not.toContain(token);
    }
  });

  it("refuses a command line it does not take with the usage, exit 2", async () => {
    const out = await cmsKubeconfig(["exec-credential"], { CMS_TOKEN: emu.token, CMS_ENDPOINT: emu.url });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("exec-credential takes one cluster id");
    expect(out.stderr).toContain("Usage:");
  });
});

describe("kubeconfigs built on it", () => {
  it("for a stack: the cluster's server, CA and context, the exec plugin in place of the token, no path of this machine", async () => {
    const id = await runningCluster("exec-stack");
    const original = (await api.get(`/v1/clusters/${id}/kubeconfig`)).text;
    const text = execKubeconfig(original, { clusterId: id, endpoint: emu.url });
    const before = parse(original);
    const after = parse(text);
    expect(after.clusters).toEqual(before.clusters);
    expect(after.contexts).toEqual(before.contexts);
    expect(after["current-context"]).toBe(before["current-context"]);
    expect(after.users).toEqual([
      {
        name: before.users[0].name,
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: "node",
            args: ["-e", PROJECT_BOOTSTRAP, "--", "exec-credential", id, "--endpoint", emu.url],
            interactiveMode: "Never",
            provideClusterInfo: false,
          },
        },
      },
    ]);
    expect(text).not.toContain(before.users[0].user.token);
    expect(text).not.toContain(ROOT);
    expect(text).not.toContain(tmpdir());
    // A rotation changes the credential only, so the kubeconfig built on it stays the same.
    await emu.control.rotateKubeconfig(id);
    const rotated = (await api.get(`/v1/clusters/${id}/kubeconfig`)).text;
    expect(rotated).not.toBe(original);
    expect(execKubeconfig(rotated, { clusterId: id, endpoint: emu.url })).toBe(text);
  });

  it("for a stack: its command runs from a project's directory with the project's pulumi-cms, and says what is missing elsewhere", async () => {
    const id = await runningCluster("exec-project");
    const project = mkdtempSync(join(tmpdir(), "cms-exec-project-"));
    const elsewhere = mkdtempSync(join(tmpdir(), "cms-exec-elsewhere-"));
    try {
      mkdirSync(join(project, "node_modules"));
      symlinkSync(ROOT, join(project, "node_modules", "pulumi-cms"));
      mkdirSync(join(project, "src"));
      const exec = parse(execKubeconfig((await api.get(`/v1/clusters/${id}/kubeconfig`)).text, { clusterId: id, endpoint: emu.url }))
        .users[0].user.exec;
      const env = { PATH: process.env.PATH, CMS_TOKEN: emu.token };
      // From the project's directory and below it, as `require` resolves.
      for (const cwd of [project, join(project, "src")]) {
        const out = await spawn(exec.command, exec.args, cwd, env);
        expect(out).toMatchObject({ code: 0, stderr: "" });
        expect(JSON.parse(out.stdout).status.token).toBe(await kubeconfigToken(id));
      }
      const lost = await spawn(exec.command, exec.args, elsewhere, env);
      expect(lost.code).toBe(1);
      expect(lost.stderr).toContain(`cms-kubeconfig: pulumi-cms is not installed in ${elsewhere} or above it (npm install pulumi-cms)`);
    } finally {
      rmSync(project, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("`save`: a kubeconfig for kubectl on this machine, written 0600 without any token, its directory made 0700 when missing", async () => {
    const id = await runningCluster("exec-save");
    const dir = mkdtempSync(join(tmpdir(), "cms-exec-save-"));
    try {
      // As docs/kubernetes.md types it on a machine where kubectl never ran: ~/.kube does not exist yet.
      const file = join(dir, ".kube", "cms-apps");
      const out = await cmsKubeconfig(["save", id, "--file", file], { CMS_ENDPOINT: emu.url, CMS_TOKEN: emu.token });
      expect(out).toMatchObject({ code: 0, stdout: "" });
      expect(out.stderr).toContain(`wrote ${file}`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, ".kube")).mode & 0o777).toBe(0o700);
      const text = readFileSync(file, "utf8");
      const exec = parse(text).users[0].user.exec;
      expect(exec.command).toBe(process.execPath);
      expect(exec.args).toEqual([join(ROOT, "src/kubernetes/cli.ts"), "exec-credential", id, "--endpoint", emu.url]);
      expect(text).not.toContain(emu.token);
      expect(text).not.toContain(await kubeconfigToken(id));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function spawn(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(command, args, { cwd, env, timeout: 30_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
