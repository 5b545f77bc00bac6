/** The standalone command, started as a child process from the compiled output. */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { controlClient } from "../../src";
import { CLI, ensureCliBuilt, runCli as run, waitForLines } from "../support/cli";
import { Api, clusterBody, stillAnswering } from "../support/emulator";
import { eventually } from "../support/eventually.mjs";

beforeAll(ensureCliBuilt, 120_000);

/**
 * Run the CLI until its own process exits and its pipes close (with `--background` too: the
 * emulator it leaves running holds neither, as `2>&1 | tee` in a CI step needs).
 */
function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("cms-emulator CLI", () => {
  it("prints the listening line first, then the generated tokens once; serves; stops on SIGTERM", async () => {
    const s = run(["--port", "0", "--provision-seconds", "0.1"]);
    await waitForLines(s, 3);
    const m = /^cms-emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(s.lines[0]);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThan(0);
    const token = /^dev token \(read, write, admin; scope \*; plan enterprise\): (\S+)$/.exec(s.lines[1])![1];
    const admin = /^admin token \(\/_emulator\/ control API\): (\S+)$/.exec(s.lines[2])![1];
    const api = new Api(m![1], token);
    const created = await api.post("/v1/clusters", clusterBody());
    expect(created.status).toBe(201);
    expect(created.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(await controlClient(m![1], admin).requestCounts()).toEqual({ "POST /v1/clusters": 1 });
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(s.lines).toHaveLength(3); // tokens printed once, nothing else on stdout
    expect(s.stderr()).toContain("stopped (SIGTERM)");
  });

  it("takes --tokens FILE, --admin-token and --state; prints no given secret; stops on SIGINT", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-cli-"));
    const tokens = join(dir, "tokens.json");
    writeFileSync(
      tokens,
      JSON.stringify({ tokens: [{ token: "file-token-community", permissions: ["read", "write"], scope: "*", plan: "community" }] }),
    );
    const state = join(dir, "state.json");
    const s = run(["--port", "0", "--tokens", tokens, "--admin-token", "given-admin-token", "--state", state]);
    await waitForLines(s, 1);
    const url = s.lines[0].replace("cms-emulator listening on ", "");
    const api = new Api(url, "file-token-community");
    const res = await api.post("/v1/clusters", clusterBody({ name: "from-cli" }));
    expect(res.status).toBe(201);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    expect((await controlClient(url, "given-admin-token").clusters()).map((c) => c.name)).toEqual(["from-cli"]);
    s.child.kill("SIGINT");
    expect(await s.exited).toBe(0);
    expect(s.lines).toHaveLength(1);
    expect(s.lines.join("\n") + s.stderr()).not.toContain("file-token-community");
    expect(existsSync(state)).toBe(true);

    // The state survives a restart of the process.
    const again = run(["--port", "0", "--token", "env-or-flag-token", "--state", state], {
      env: { CMS_EMULATOR_ADMIN_TOKEN: "env-admin-token" },
    });
    await waitForLines(again, 1);
    const url2 = again.lines[0].replace("cms-emulator listening on ", "");
    expect(again.lines.join("\n")).not.toContain("env-or-flag-token");
    const list = await new Api(url2, "env-or-flag-token").get("/v1/clusters");
    expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(["from-cli"]);
    expect((await controlClient(url2, "env-admin-token").requestCounts())["GET /v1/clusters"]).toBe(1);
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
    expect(again.lines).toHaveLength(1); // neither token was generated, so none is printed
  });

  it("rejects bad flags with a message naming the flag and exit code 2", async () => {
    for (const [args, message] of [
      [["--port", "abc"], "--port must be an integer"],
      [["--plan", "gold"], "--plan must be one of community, pro, enterprise"],
      [["--provision-seconds=-3"], "--provision-seconds must be a number of seconds"],
      [["--tokens", "/nonexistent/tokens.json"], "--tokens /nonexistent/tokens.json: cannot read it (ENOENT)"],
      [["--token", "t2"], "--token must be a string of 8 to 512 printable ASCII characters without spaces"],
      [["--admin-token", "a b c d e f"], "--admin-token must be a string of 8 to 512"],
      [["--pid-file="], "--pid-file must name a file"],
      [["--bogus"], "Unknown option '--bogus'"],
    ] as const) {
      const s = run([...args]);
      expect(await s.exited).toBe(2);
      expect(s.stderr()).toContain(message);
    }
    const fromEnv = run(["--port", "0"], { env: { CMS_EMULATOR_TOKEN: "short" } });
    expect(await fromEnv.exited).toBe(2);
    expect(fromEnv.stderr()).toContain("CMS_EMULATOR_TOKEN must be a string of 8 to 512");
    expect(fromEnv.stderr()).not.toContain("short");
  });

  it("--background returns once listening, with the pid; the server runs on; --pid-file holds the pid until it stops", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-cli-"));
    const pidFile = join(dir, "emulator.pid");
    const started = await runToExit([
      CLI,
      "--background",
      ...["--port", "0", "--token", "background-token", "--admin-token", "background-admin", "--pid-file", pidFile],
    ]);
    expect(started.code, started.stderr).toBe(0);
    // Its stderr was a pipe: its errors go to a file, which it names.
    const logFile = /^cms-emulator: its errors go to (\S+) \(this stderr is a pipe, which it would hold open\)$/.exec(
      started.stderr.trim(),
    )?.[1];
    expect(logFile && existsSync(logFile), started.stderr).toBe(true);
    const [listening, running] = started.stdout.trim().split("\n");
    const url = /^cms-emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(listening)![1];
    const pid = Number(/^cms-emulator running in the background: pid (\d+) \(stop it with: kill \1\)$/.exec(running)![1]);
    try {
      expect(Number(readFileSync(pidFile, "utf8"))).toBe(pid);
      expect((await new Api(url, "background-token").get("/v1/clusters")).status).toBe(200);
    } finally {
      process.kill(pid, "SIGTERM");
    }
    await eventually(() => !existsSync(pidFile), { timeoutMs: 15_000, what: "the pid file removed on stop" });
    expect(await stillAnswering(`${url}/v1/clusters`)).toBe(false);
  });

  it("a port that is taken: says so, naming --port and --port 0, in the foreground and with --background", async () => {
    const s = run(["--port", "0", "--token", "taken-port-token"]);
    await waitForLines(s, 1);
    const port = /:(\d+)$/.exec(s.lines[0])![1];
    const taken =
      `cms-emulator: port ${port} of 127.0.0.1 is taken (EADDRINUSE), by another emulator or another server: ` +
      `choose another with --port N, or --port 0 for any free one\n`;
    try {
      const foreground = await runToExit([CLI, "--port", port, "--token", "taken-port-token"]);
      expect(foreground.code).toBe(1);
      expect(foreground.stderr).toBe(taken);
      const second = await runToExit([CLI, "--background", "--port", port, "--token", "taken-port-token"]);
      expect(second.code).toBe(1);
      // One message: the child's, not a second line from the starter.
      expect(second.stderr).toBe(taken);
      expect(second.stdout).toBe("");
    } finally {
      s.child.kill("SIGTERM");
    }
  });

  it("--log logs requests to stderr without tokens or bodies; stdout keeps the listening line first", async () => {
    const s = run(["--port", "0", "--log", "--token", "logged-token-secret", "--admin-token", "logged-admin-secret"]);
    await waitForLines(s, 1);
    expect(s.lines[0]).toMatch(/^cms-emulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = s.lines[0].replace("cms-emulator listening on ", "");
    await new Api(url, "logged-token-secret").post("/v1/clusters", clusterBody({ name: "log-body-marker" }));
    await new Api(url, "logged-token-secret").get("/v1/clusters");
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(s.lines).toHaveLength(1);
    const log = s.stderr();
    expect(log).toContain("/v1/clusters");
    expect(log).not.toContain("logged-token-secret");
    expect(log).not.toContain("logged-admin-secret");
    expect(log).not.toContain("log-body-marker");
  });

  it("a malformed tokens file is refused without quoting it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-cli-"));
    const file = join(dir, "tokens.json");
    writeFileSync(file, '{"tokens":[{"token": secret-token-value}]}');
    const s = run(["--port", "0", "--tokens", file]);
    expect(await s.exited).toBe(2);
    expect(s.stderr()).toContain(`--tokens ${file}: not valid JSON`);
    expect(s.stderr()).not.toContain("secret-token-value");
    writeFileSync(file, JSON.stringify({ tokens: [{ token: "short", permissions: ["read"], scope: "*", plan: "pro" }] }));
    const bad = run(["--port", "0", "--tokens", file]);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain(`--tokens ${file}: tokens[0].token must be a string of 8 to 512 printable ASCII characters`);
    expect(bad.stderr()).not.toContain('"short"');
  });

  it("--help prints the usage", async () => {
    const s = run(["--help"]);
    expect(await s.exited).toBe(0);
    expect(s.lines.join("\n")).toContain("--provision-seconds");
  });
});
