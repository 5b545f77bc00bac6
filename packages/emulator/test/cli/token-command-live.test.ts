/**
 * `cms-emulator token create`: the real command, as a child process, against a real emulator over
 * HTTP. The emulator runs on a ManualClock, so expiry is stepped to, not waited for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { parseDuration } from "../../src/http/auth";
import { ensureCliBuilt, runCli } from "../support/cli";
import { Api, clusterBody, start } from "../support/emulator";

const DAY = 86_400_000;

/** Runs `cms-emulator token …` to its end. */
async function token(args: string[], env: NodeJS.ProcessEnv = {}) {
  const s = runCli(["token", ...args], { env: { CMS_EMULATOR_ADMIN_TOKEN: "", ...env } });
  const code = await s.exited;
  await new Promise((r) => setImmediate(r)); // what it wrote before exiting is in the pipes already
  return { code, lines: s.lines, stderr: s.stderr() };
}

describe("cms-emulator token create", () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let emu: RunningEmulator;
  beforeAll(async () => {
    ensureCliBuilt();
    ({ emu } = await start({ clock, adminToken: "cms_admin_token_command_test" }));
  }, 120_000);
  afterAll(() => emu?.close());

  const create = (args: string[]) => token(["create", ...args, "--url", emu.url, "--admin-token", emu.adminToken]);

  it("prints only the new token on stdout; it reads, may not write, and answers unauthorized once expired", async () => {
    const made = await create(["ci-reader", "--permissions", "read", "--expires", "30d"]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.lines).toHaveLength(1);
    const [secret] = made.lines;
    expect(secret).toMatch(/^cms_tok_[0-9a-f]{40}$/);
    expect(made.stderr).toBe(
      `token "ci-reader" created on ${emu.url}: read; scope *; plan enterprise; expires 2026-01-31T00:00:00.000Z. It is printed only this once.\n`,
    );

    const api = new Api(emu.url, secret);
    expect((await api.get("/v1/clusters")).status).toBe(200);
    const write = await api.post("/v1/clusters", clusterBody());
    expect(write.status).toBe(403);
    expect(write.body.error).toBe("forbidden");

    clock.advance(30 * DAY - 1000);
    expect((await api.get("/v1/clusters")).status).toBe(200);
    clock.advance(1000);
    const expired = await api.get("/v1/clusters");
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({
      error: "unauthorized",
      message: "The API token is invalid or expired (it expired at 2026-01-31T00:00:00.000Z)",
    });
  });

  it("takes a scope, a plan and a comma-separated permission list", async () => {
    const owner = new Api(emu.url, emu.token);
    const cluster = (await owner.post("/v1/clusters", clusterBody({ name: "scoped" }))).body;
    const made = await create([
      "deployer",
      "--permissions",
      "read,write",
      "--scope",
      `cluster:${cluster.id}`,
      "--plan",
      "community",
      "--expires",
      "12h",
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(": read, write; scope cluster:");
    const api = new Api(emu.url, made.lines[0]);
    const mine = await api.get(`/v1/clusters/${cluster.id}`);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("x-ratelimit-limit")).toBe("100");
    expect((await api.post("/v1/clusters", clusterBody())).status).toBe(403); // a one-cluster scope cannot create
  });

  it("refuses bad arguments before calling, naming the flag (exit 2), and reports the emulator's refusal (exit 1)", async () => {
    for (const [args, message] of [
      [
        ["ci", "--permissions", "read,deploy", "--expires", "30d"],
        '--permissions must be a comma-separated list of read, write, admin; got "deploy"',
      ],
      [
        ["ci", "--permissions", "read", "--expires", "30"],
        '--expires must be a whole number of days, hours, minutes or seconds, e.g. 30d, 12h, 90m, 45s; got "30"',
      ],
      [["ci", "--permissions", "read"], "--expires is required"],
      [["--permissions", "read", "--expires", "1d"], "token create needs the token's NAME"],
    ] as const) {
      const r = await create([...args]);
      expect(r.code).toBe(2);
      expect(r.lines).toEqual([]);
      expect(r.stderr).toContain(`cms-emulator token: ${message}`);
    }
    const badScope = await create(["ci", "--permissions", "read", "--expires", "1d", "--scope", "project:1"]);
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('scope must be "*", "cluster:*" or "cluster:<cluster id>"');

    const noAdmin = await token(["create", "ci", "--permissions", "read", "--expires", "1d", "--url", emu.url]);
    expect(noAdmin.code).toBe(2);
    expect(noAdmin.stderr).toContain("--admin-token TOKEN or CMS_EMULATOR_ADMIN_TOKEN");
    const fromEnv = await token(["create", "ci", "--permissions", "read", "--expires", "1d", "--url", emu.url], {
      CMS_EMULATOR_ADMIN_TOKEN: "not-the-admin-token",
    });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain("401 unauthorized");
  });

  it("reads durations as the service's client writes them", () => {
    expect(parseDuration("30d")).toBe(30 * DAY);
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("45s")).toBe(45_000);
    for (const bad of ["0d", "30", "d", "1.5d", "-1d", "30D", "1d12h", " 30d"]) expect(parseDuration(bad)).toBeUndefined();
  });
});
