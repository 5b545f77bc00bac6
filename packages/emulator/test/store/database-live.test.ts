/**
 * `--state FILE` when things go wrong: a full disk and the file size limit (real ones: a small tmpfs,
 * `prlimit --fsize`), `kill -9`, a second emulator on the same file, damaged records, a write cut
 * short, the state files of earlier releases, and a state of 100,000 clusters.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, closeSync, cpSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src";
import { provisionCluster } from "../../src/model/lifecycle";
import type { ClusterRecord } from "../../src/model/records";
import { StateStore } from "../../src/store/database";
import { ensureCliBuilt, kill9, listeningUrl, runCli, type StartedCli } from "../support/cli";
import { Api, clusterBody } from "../support/emulator";
import { rejection } from "../support/rejection";
import { sqlite } from "../support/sqlite";

const TOKEN = "state-store-token-0123";
const LEGACY = join(__dirname, "legacy-state");

beforeAll(ensureCliBuilt, 120_000);

/** Started by a test and still running: killed if the test fails before it does. */
const running = new Set<StartedCli>();
afterAll(async () => {
  await Promise.all([...running].map((s) => kill9(s)));
});

/** The CLI on `statePath`: operations end at once, except deletions (30 s, so a deleted cluster is seen `deleting`). */
async function start(statePath: string, wrapper?: string[], token = TOKEN): Promise<{ cli: StartedCli; api: Api }> {
  const cli = runCli(
    ["--port", "0", "--token", token, "--provision-seconds", "0", "--scale-seconds", "0", "--delete-seconds", "30", "--state", statePath],
    { wrapper },
  );
  running.add(cli);
  void cli.exited.then(() => running.delete(cli));
  return { cli, api: new Api(await listeningUrl(cli), token) };
}

async function stop(cli: StartedCli): Promise<void> {
  await kill9(cli);
  running.delete(cli);
}

/** Every cluster of the list, all pages. */
async function listAll(api: Api): Promise<Array<{ id: string; name: string; status: string; workers: number }>> {
  const out = [];
  for (let page = 1; ; page++) {
    const body = (await api.get(`/v1/clusters?per_page=100&page=${page}`)).body;
    out.push(...body.items);
    if (body.items.length < 100) return out;
  }
}

function expectStorageUnavailable(res: { status: number; body: unknown; headers: Headers }, cause: RegExp): void {
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("1");
  expect(res.body).toEqual({ error: "storage_unavailable", message: expect.stringMatching(/^The change was not saved: the state file /) });
  expect((res.body as { message: string }).message).toMatch(cause);
  expect((res.body as { message: string }).message).toContain("Nothing was changed");
}

interface Request {
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
}

/** What was answered 2xx, which must be there after any restart. */
class Ledger {
  readonly created = new Map<string, string>(); // name -> id
  readonly workers = new Map<string, number>(); // id -> workers last acknowledged
  readonly deleted = new Set<string>();

  async check(api: Api, refused: Request[]): Promise<void> {
    const list = await listAll(api);
    const byName = new Map(list.map((c) => [c.name, c]));
    for (const [name, id] of this.created) expect(byName.get(name)?.id, `acknowledged create ${name}`).toBe(id);
    for (const [id, workers] of this.workers) expect(list.find((c) => c.id === id)?.workers, `acknowledged workers of ${id}`).toBe(workers);
    for (const c of list) expect(c.status === "deleting", `cluster ${c.name} deleting`).toBe(this.deleted.has(c.id));
    for (const r of refused) {
      if (r.method === "POST")
        expect(byName.has((r.body as { name: string }).name), `refused create ${JSON.stringify(r.body)}`).toBe(false);
    }
  }
}

/**
 * Creates, scales and deletes until each kind of change has been refused at least once (bounded):
 * every refusal is 503 `storage_unavailable` naming the cause and leaves what reads show as it was.
 */
async function changesUntilRefused(api: Api, ledger: Ledger, cause: RegExp): Promise<Request[]> {
  const refused: Request[] = [];
  const kinds = new Set<string>();
  const record = async (r: Request, ok: number, before: () => Promise<unknown>): Promise<boolean> => {
    const seen = await before();
    const res = await api.req(r.method, r.path, r.body);
    if (res.status === ok) return true;
    expectStorageUnavailable(res, cause);
    expect(await before(), `${r.method} ${r.path} refused: nothing changed`).toEqual(seen);
    refused.push(r);
    kinds.add(r.method);
    return false;
  };
  const names = async () => (await listAll(api)).map((c) => c.name);
  for (let i = 0; i < 300 && kinds.size < 3; i++) {
    const name = `full-${i}`;
    const post: Request = { method: "POST", path: "/v1/clusters", body: clusterBody({ name }) };
    if (!kinds.has("POST") || i % 4 === 0) {
      if (await record(post, 201, names)) ledger.created.set(name, (await listAll(api)).find((c) => c.name === name)!.id);
    }
    const [id] = [...ledger.created.values()].filter((c) => !ledger.deleted.has(c));
    const cluster = () => api.get(`/v1/clusters/${id}`).then((r) => r.body);
    const workers = ((await cluster()).workers % 4) + 1;
    if (await record({ method: "PATCH", path: `/v1/clusters/${id}`, body: { workers } }, 200, cluster)) ledger.workers.set(id, workers);
    const doomed = [...ledger.created.values()].filter((c) => !ledger.deleted.has(c) && c !== id).at(-1);
    if (
      doomed &&
      (await record({ method: "DELETE", path: `/v1/clusters/${doomed}` }, 204, () => api.get(`/v1/clusters/${doomed}`).then((r) => r.body)))
    ) {
      ledger.deleted.add(doomed);
    }
  }
  expect([...kinds].sort()).toEqual(["DELETE", "PATCH", "POST"]);
  return refused;
}

/** Sends the refused requests again: they are written now. */
async function retry(api: Api, ledger: Ledger, refused: Request[]): Promise<void> {
  // Oldest first, each once: a later refusal of the same cluster supersedes nothing that was written.
  for (const r of refused) {
    if (r.method === "DELETE" && ledger.deleted.has(r.path.split("/").at(-1)!)) continue;
    const res = await api.req(r.method, r.path, r.body);
    expect(res.status, `${r.method} ${r.path} again: ${res.text}`).toBe(r.method === "POST" ? 201 : r.method === "PATCH" ? 200 : 204);
    if (r.method === "POST") ledger.created.set((r.body as { name: string }).name, res.body.id);
    if (r.method === "PATCH") ledger.workers.set(r.path.split("/").at(-1)!, (r.body as { workers: number }).workers);
    if (r.method === "DELETE") ledger.deleted.add(r.path.split("/").at(-1)!);
  }
}

async function seed(api: Api, ledger: Ledger): Promise<void> {
  for (const name of ["seed-a", "seed-b", "seed-c"]) {
    const res = await api.post("/v1/clusters", clusterBody({ name }));
    expect(res.status).toBe(201);
    ledger.created.set(name, res.body.id);
  }
}

const isRoot = process.getuid?.() === 0;
const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0;
/** In CI these must run; elsewhere they are skipped, saying why, where the machine cannot. */
const needs = (ok: boolean) => ok || process.env.CI !== undefined;

describe("--state: a write that fails is refused, and nothing of it is kept", () => {
  it.skipIf(!needs(isRoot))(
    "disk full (a 1 MiB tmpfs): each change refused 503 storage_unavailable, reads unchanged; after kill -9 the state loads with every acknowledged change and none of the refused; once space is freed, the same requests are written",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "cms-full-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]);
      try {
        const statePath = join(dir, "state.db");
        const ledger = new Ledger();
        let { cli, api } = await start(statePath);
        await seed(api, ledger);
        // Fill the file system: 4 KiB at a time (its pages) until it refuses.
        const filler = openSync(join(dir, "filler"), "w");
        try {
          for (;;) writeSync(filler, Buffer.alloc(4096));
        } catch (e) {
          expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
        } finally {
          closeSync(filler);
        }
        const refused = await changesUntilRefused(api, ledger, /the disk is full: database or disk is full/);
        expect(cli.stderr()).toMatch(/cannot write state file .*state\.db: the disk is full/);
        await stop(cli);

        ({ cli, api } = await start(statePath)); // the disk is still full: it loads all the same
        await ledger.check(api, refused);
        rmSync(join(dir, "filler"));
        await retry(api, ledger, refused);
        await stop(cli);

        ({ cli, api } = await start(statePath));
        await ledger.check(api, []);
        await stop(cli);
      } finally {
        // Nothing may hold the file system open, or it stays mounted (also when the test failed midway).
        await Promise.all([...running].map((s) => stop(s)));
        execFileSync("umount", [dir]);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(!needs(hasPrlimit))(
    "file size limit (prlimit --fsize): refused the same way; the state loads under the limit; raised, the same requests are written; all there after kill -9",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "cms-fsize-"));
      const statePath = join(dir, "state.db");
      // Soft limit 256 KiB, hard limit unlimited: the soft one can be raised again without privileges.
      const limited = ["prlimit", `--fsize=${256 * 1024}:unlimited`];
      const ledger = new Ledger();
      let { cli, api } = await start(statePath, limited);
      await seed(api, ledger);
      const refused = await changesUntilRefused(api, ledger, /the file size limit of 262144 bytes is reached: disk I\/O error/);
      await stop(cli);

      ({ cli, api } = await start(statePath, limited));
      await ledger.check(api, refused);
      execFileSync("prlimit", ["--pid", String(cli.child.pid), "--fsize=unlimited:unlimited"]);
      await retry(api, ledger, refused);
      await stop(cli);

      ({ cli, api } = await start(statePath));
      await ledger.check(api, []);
      await stop(cli);
      rmSync(dir, { recursive: true, force: true });
    },
    120_000,
  );
});

/** Names, sizes, modification times and contents of every file in `dir`. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((f) => {
      const s = statSync(join(dir, f));
      return [
        f,
        `${s.size} ${s.mtimeMs} ${createHash("sha256")
          .update(readFileSync(join(dir, f)))
          .digest("hex")}`,
      ];
    }),
  );
}

describe("--state: one emulator per file", () => {
  it("a second emulator on the same file refuses to start, naming the running one's pid, and changes no file; the first keeps every acknowledged change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-one-writer-"));
    const statePath = join(dir, "state.db");
    const first = await start(statePath);
    const before = (await first.api.post("/v1/clusters", clusterBody({ name: "before" }))).body.id;
    const files = snapshot(dir);

    const second = runCli(["--port", "0", "--state", statePath]);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`state file ${statePath} is in use by process ${first.cli.child.pid}`);
    expect(second.lines).toEqual([]); // it never listened
    expect(snapshot(dir)).toEqual(files);

    const after = (await first.api.post("/v1/clusters", clusterBody({ name: "after" }))).body.id;
    await stop(first.cli);
    const again = await start(statePath);
    expect((await listAll(again.api)).map((c) => c.id)).toEqual([before, after]);
    await stop(again.cli);
  });

  it("in one process too: the second start rejects naming this process", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "cms-one-writer-")), "state.db");
    const emu = await startEmulator({ statePath });
    expect((await rejection(startEmulator({ statePath }))).message).toBe(
      `state file ${statePath} is in use by this process (pid ${process.pid}): one emulator per state file; stop that one or use another file`,
    );
    await emu.close();
    // Released by the close: it starts again.
    await (await startEmulator({ statePath })).close();

    // Two starts at once: one gets it, and keeps the lock (another process is still refused).
    const [a, b] = await Promise.allSettled([startEmulator({ statePath }), startEmulator({ statePath })]);
    const winner = [a, b].find((r) => r.status === "fulfilled");
    expect([a, b].filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message)).toEqual([
      expect.stringContaining("is in use by this process"),
    ]);
    const other = runCli(["--port", "0", "--state", statePath]);
    expect(await other.exited).toBe(1);
    expect(other.stderr()).toContain(`is in use by process ${process.pid}`);
    await (winner as PromiseFulfilledResult<Awaited<ReturnType<typeof startEmulator>>>).value.close();
  });
});

describe("--state: records are checked when the file is loaded", () => {
  async function stateWithThree(): Promise<{ statePath: string; ids: string[] }> {
    const statePath = join(mkdtempSync(join(tmpdir(), "cms-damaged-")), "state.db");
    const emu = await startEmulator({ statePath, token: TOKEN });
    const api = new Api(emu.url, TOKEN);
    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) ids.push((await api.post("/v1/clusters", clusterBody({ name }))).body.id);
    await emu.close();
    return { statePath, ids };
  }

  it.each([
    ["{}", () => "{}", "field id is missing"],
    ["null", () => "null", "it is not a cluster record (got null)"],
    ["nodes: null", (r: ClusterRecord) => JSON.stringify({ ...r, nodes: null }), "field nodes must be of type array (got null)"],
    [
      "a node's status",
      (r: ClusterRecord) => JSON.stringify({ ...r, nodes: [{ ...r.nodes[0], status: "melted" }] }),
      'field nodes[0].status must be one of provisioning, installing, joining, ready, not_ready, draining, deleting, gone (got "melted")',
    ],
    ["workers as text", (r: ClusterRecord) => JSON.stringify({ ...r, workers: "2" }), 'field workers must be of type integer (got "2")'],
    ["text that is not JSON", () => '{"id":', "it is not valid JSON"],
  ])(
    "a damaged record (%s) refuses the start naming the file, the record and the field; the file is left as it was",
    async (_, damage, field) => {
      const { statePath, ids } = await stateWithThree();
      const [{ record }] = sqlite<{ record: string }>(statePath, "SELECT record FROM clusters WHERE id = ?", [ids[1]]);
      sqlite(statePath, "UPDATE clusters SET record = ? WHERE id = ?", [damage(JSON.parse(record)), ids[1]]);
      const bytes = readFileSync(statePath);
      expect((await rejection(startEmulator({ statePath }))).message).toBe(
        `state file ${statePath}: record 2 (cluster ${ids[1]}) is damaged: ${field}`,
      );
      expect(readFileSync(statePath).equals(bytes)).toBe(true);
    },
  );

  it("a record without an argument the create may leave out (written before it was declared) loads as a create that left it out", async () => {
    const { statePath, ids } = await stateWithThree();
    const [{ record }] = sqlite<{ record: string }>(statePath, "SELECT record FROM clusters WHERE id = ?", [ids[1]]);
    const { infra_id: _infra, phase: _phase, ...older } = JSON.parse(record) as ClusterRecord;
    sqlite(statePath, "UPDATE clusters SET record = ? WHERE id = ?", [JSON.stringify(older), ids[1]]);
    const emu = await startEmulator({ statePath, token: TOKEN });
    try {
      const { status, body } = await new Api(emu.url, TOKEN).get(`/v1/clusters/${ids[1]}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: ids[1], name: "two", phase: "managed", infra_id: null });
    } finally {
      await emu.close();
    }
  });

  it("a damaged record of a JSON state refuses the start too, and nothing is converted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-damaged-"));
    cpSync(join(LEGACY, "format-1"), dir, { recursive: true });
    const statePath = join(dir, "state.cms");
    const snapshot = JSON.parse(readFileSync(statePath, "utf8"));
    snapshot.clusters[1].kubeconfig = null;
    const text = JSON.stringify(snapshot);
    appendFileSync(join(dir, "empty"), ""); // the directory holds other files as well
    rmSync(statePath);
    appendFileSync(statePath, text);
    expect((await rejection(startEmulator({ statePath }))).message).toBe(
      `state file ${statePath}: record clusters[1] (cluster ${snapshot.clusters[1].id}) is damaged: field kubeconfig must be of type object`,
    );
    expect(readFileSync(statePath, "utf8")).toBe(text);
    expect(readdirSync(dir).sort()).toEqual(["empty", "state.cms"]);
  });
});

describe("--state: a write cut short by a crash", () => {
  it("is dropped and reported: the bytes a crash left after the last whole write of the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-torn-"));
    const statePath = join(dir, "state.db");
    const first = await start(statePath);
    const ids = [];
    for (const name of ["a", "b"]) ids.push((await first.api.post("/v1/clusters", clusterBody({ name }))).body.id);
    await stop(first.cli);
    appendFileSync(`${statePath}-wal`, Buffer.alloc(100, 0x5a)); // a frame cut short: 100 bytes of it
    const again = await start(statePath);
    expect((await listAll(again.api)).map((c) => c.id)).toEqual(ids);
    expect(again.cli.stderr()).toMatch(
      /state file .*state\.db was not closed cleanly \(a crash or kill\); recovered from its write-ahead log \(\d+ bytes\): every acknowledged change is kept; a last write cut short \(100 bytes, never acknowledged\) is dropped/,
    );
    await stop(again.cli);
  });
});

describe("--state: the JSON state files of earlier releases are converted", () => {
  function copy(fixture: string): { dir: string; statePath: string } {
    const dir = mkdtempSync(join(tmpdir(), "cms-legacy-"));
    cpSync(join(LEGACY, fixture), dir, { recursive: true });
    return { dir, statePath: join(dir, "state.cms") };
  }

  /** What the old emulator answered, and what this one answers for the same clusters. */
  async function expectSame(api: Api, fixture: string): Promise<void> {
    const expected = JSON.parse(readFileSync(join(LEGACY, `${fixture}.expected.json`), "utf8"));
    const list = await listAll(api);
    expect(list).toEqual(expected.clusters.map((c: { cluster: unknown }) => c.cluster));
    for (const c of expected.clusters) {
      expect((await api.get(`/v1/clusters/${c.cluster.id}/nodes`)).body).toEqual(c.nodes);
      // The same credential (the YAML around it is this release's; without --kubernetes it carries no CA).
      const kubeconfig = (await api.get(`/v1/clusters/${c.cluster.id}/kubeconfig`)).text;
      for (const line of c.kubeconfig.split("\n").filter((l: string) => /^\s*token:/.test(l))) {
        expect(kubeconfig).toContain(line.trim());
      }
    }
    for (const id of expected.gone) expect((await api.get(`/v1/clusters/${id}`)).status).toBe(404);
  }

  it.each([
    ["format-1", "0.1.0's snapshot"],
    ["format-2", "33b99be's snapshot and journal, after kill -9"],
  ])("%s (%s): every cluster as that release served it; one SQLite file left; a restart reads it", async (fixture) => {
    const { dir, statePath } = copy(fixture);
    const first = await start(statePath, undefined, "fixture-token-0123456789");
    await expectSame(first.api, fixture);
    expect(first.cli.stderr()).toContain(`state file ${statePath} converted to format 3 (SQLite)`);
    expect(readdirSync(dir).filter((f) => !f.startsWith("state.cms-"))).toEqual(["state.cms"]); // no journal left, only the WAL beside it
    expect(readFileSync(statePath).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");
    await stop(first.cli);
    const again = await start(statePath, undefined, "fixture-token-0123456789");
    await expectSame(again.api, fixture);
    expect(again.cli.stderr()).not.toContain("converted");
    await stop(again.cli);
  });

  it("format 2 after a full disk: the commit cut short is dropped and reported, the acknowledged one appended after it on the same line is kept", async () => {
    const { statePath } = copy("format-2-disk-full");
    const expected = JSON.parse(readFileSync(join(LEGACY, "format-2-disk-full.expected.json"), "utf8"));
    const { cli, api } = await start(statePath, undefined, "fixture-token-0123456789");
    expect((await listAll(api)).map((c) => c.name)).toEqual(expected.acknowledged);
    expect(cli.stderr()).toMatch(
      /state journal .*state\.cms\.journal-1, line 6: a write cut short \(\d+ bytes, never acknowledged\) is dropped/,
    );
    await stop(cli);
  });

  it("format 2 with its last journal line cut short by a crash: that line is dropped and reported, the rest converted", async () => {
    const { statePath } = copy("format-2");
    const journal = `${statePath}.journal-1`;
    const lines = readFileSync(journal, "utf8").split("\n");
    const last = lines.at(-2)!; // the delete of `doomed`
    rmSync(journal);
    appendFileSync(journal, [...lines.slice(0, -2), last.slice(0, 40)].join("\n"));
    const { cli, api } = await start(statePath, undefined, "fixture-token-0123456789");
    const list = await listAll(api);
    expect(list.map((c) => c.name)).toEqual(["kept", "bare", "doomed"]);
    expect(list[2].status).toBe("running"); // its delete was the line cut short
    expect(cli.stderr()).toContain(
      `state journal ${journal}, line ${lines.length - 1}: a write cut short (40 bytes, never acknowledged) is dropped`,
    );
    await stop(cli);
  });
});

describe("--state: any size it accepts, it reloads", () => {
  it("100,000 clusters (10x the benchmark's) written through the store are all there after a restart through the real load path; the next create is refused at the cap with 422 quota_exceeded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-large-"));
    const statePath = join(dir, "state.db");
    const count = 100_000;
    const now = Date.now();
    const { store } = await StateStore.open(statePath, { cluster: () => undefined, creating: () => false });
    const ids: string[] = [];
    for (let i = 0; i < count; i += 10_000) {
      const records = Array.from({ length: 10_000 }, (_, k) =>
        provisionCluster(
          { name: `large-${i + k}`, control_planes: 1, workers: 1, node_size: "small", phase: "managed", infra_id: null },
          now,
          0,
          false,
          i + k,
        ),
      );
      ids.push(...records.map((r) => r.id));
      await store.write({ put: records });
    }
    await store.close();

    const emu = await startEmulator({ statePath, token: TOKEN });
    const api = new Api(emu.url, TOKEN);
    const first = (await api.get("/v1/clusters?per_page=100")).body;
    expect(first.total).toBe(count);
    expect(first.items.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 100));
    const last = (await api.get(`/v1/clusters?per_page=100&page=${count / 100}`)).body;
    expect(last.items.map((c: { id: string }) => c.id)).toEqual(ids.slice(-100));
    for (const i of [1, 4_567, 54_321, 99_998]) {
      expect((await api.get(`/v1/clusters/${ids[i]}`)).body).toMatchObject({ id: ids[i], name: `large-${i}`, status: "running" });
    }
    const refused = await api.post("/v1/clusters", clusterBody({ name: "one-too-many" }));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      error: "quota_exceeded",
      message: "The emulator holds at most 100,000 clusters and holds 100,000: delete clusters first",
    });
    await emu.close();
    rmSync(dir, { recursive: true, force: true }); // about 200 MB
  }, 120_000);

  it("the caps are checked before anything is made: creates and scale-ups past them are 422, nothing changes; room made by a delete is used again", async () => {
    const emu = await startEmulator({
      token: TOKEN,
      capacity: { clusters: 2, nodes: 5 },
      provisionSeconds: 0,
      scaleSeconds: 0,
      deleteSeconds: 0,
    });
    const api = new Api(emu.url, TOKEN);
    const a = (await api.post("/v1/clusters", clusterBody({ name: "a", workers: 1 }))).body.id;
    expect((await api.post("/v1/clusters", clusterBody({ name: "b", workers: 1 }))).status).toBe(201);
    const third = await api.post("/v1/clusters", clusterBody({ name: "c", workers: 1 }));
    expect(third.status).toBe(422);
    expect(third.body.message).toBe("The emulator holds at most 2 clusters and holds 2: delete clusters first");
    const grow = await api.patch(`/v1/clusters/${a}`, { workers: 3 });
    expect(grow.status).toBe(422);
    expect(grow.body).toEqual({
      error: "quota_exceeded",
      message: "The emulator holds at most 5 nodes (control planes and workers of all clusters): this change adds 2 and 1 are left",
    });
    expect((await api.get(`/v1/clusters/${a}`)).body).toMatchObject({ workers: 1, status: "running" });
    expect((await api.patch(`/v1/clusters/${a}`, { workers: 2 })).status).toBe(200);
    expect((await api.del(`/v1/clusters/${a}`)).status).toBe(204);
    expect((await api.get(`/v1/clusters/${a}`)).status).toBe(404);
    expect((await api.post("/v1/clusters", clusterBody({ name: "c", workers: 1 }))).status).toBe(201);
    await emu.close();
  });
});
