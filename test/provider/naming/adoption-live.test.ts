/**
 * Which existing cluster a create may take instead of POSTing, against the real emulator: the one
 * an interrupted run of the same resource left (auto-name derived from the URN and the stack's
 * seed), and never anybody else's (a twin stack's, a console cluster, one a 0.2.0 name shares).
 * Also the `import` id that must not outlive the first create, and the merge job's refusal of an
 * explicit name that an unrecorded cluster carries (`CMS_EXISTING_NAME=stop`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../../src/client";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { derivedAutoName } from "../../../src/provider/naming/auto-name";
import { clusterProvider, emulatorForProvider, inputs, rejection, testRuntime } from "../../support/provider";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.control.reset();
});

let n = 0;
/** A fresh URN per test, so names derived from it never meet across tests. */
const urn = (stack = "dev") => `urn:pulumi:${stack}::proj::pulumi-nodejs:dynamic/cms:Cluster::web${++n}`;
const SHAPE = { controlPlanes: 1, workers: 2, nodeSize: "small" };
/** The stack's auto-name seed, as `resources/autoname-seed.ts` records it. */
const SEED = "5eed5eed5eed5eed5eed5eed5eed5eed";
const TWIN_SEED = "7a1e7a1e7a1e7a1e7a1e7a1e7a1e7a1e";

/** What the engine hands create for an auto-named resource: check's output. */
async function checked(u: string, olds: Record<string, unknown> = {}, over: Record<string, unknown> = {}) {
  const { inputs: checkedInputs, failures } = await clusterProvider.check(olds, {
    ...inputs({ ...SHAPE, __urn: u, __seed: SEED }),
    name: undefined,
    ...over,
  });
  expect(failures).toEqual([]);
  return checkedInputs as Record<string, unknown>;
}

/** A cluster made behind the provider's back (console, another stack, or a killed run's POST). */
async function existing(name: string, shape: Record<string, unknown> = { control_planes: 1, workers: 2, node_size: "small" }) {
  const client = createClient({ endpoint: emu.url, token: emu.token });
  return (await client.createCluster({ name, ...shape } as never)).id;
}

const posts = async () => (await emu.control.requestCounts())["POST /v1/clusters"] ?? 0;

describe("auto-names", () => {
  it("preview and up compute the same name (a second check gives the name of the first)", async () => {
    const u = urn();
    const a = await checked(u);
    const b = await checked(u);
    expect(a.name).toBe(b.name);
    expect(a.name).toBe(derivedAutoName(u, 0, SEED));
    expect(a.__autonamed).toBe(true);
  });

  it("two stacks of one project get different names for the same resource", async () => {
    const u = urn("dev");
    const other = u.replace("urn:pulumi:dev::", "urn:pulumi:prod::");
    expect((await checked(u)).name).not.toBe((await checked(other)).name);
  });

  it("a replacement's re-check (no olds, after a check with olds) takes the next generation", async () => {
    const u = urn();
    const first = await checked(u);
    // Update/replace: the engine checks with the old inputs, then (replacing) without them.
    const again = await checked(u, first);
    expect(again.name).toBe(first.name);
    const replacement = await checked(u);
    expect(replacement.name).toBe(derivedAutoName(u, 1, SEED));
    expect(replacement.name).not.toBe(first.name);
  });
});

describe("`up --replace` (check without olds, but the program read the state's name)", () => {
  it("takes the next generation and never keeps the record in the inputs", async () => {
    const u = urn();
    const recordedName = derivedAutoName(u, 0, SEED);
    const replacing = await checked(u, {}, { __inState: { name: recordedName } });
    expect(replacing.name).toBe(derivedAutoName(u, 1, SEED));
    expect(replacing).not.toHaveProperty("__inState");
  });
});

describe("a cluster left by an interrupted run", () => {
  it("is taken over by the next create of the same resource: no second POST", async () => {
    const u = urn();
    const news = await checked(u);
    const leftover = await existing(String(news.name));
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.create(news);
    expect(res.id).toBe(leftover);
    expect(res.outs).toMatchObject({ name: news.name, status: "running", kubeconfig: expect.any(String) });
    expect(await posts()).toBe(0);
    expect((await emu.control.clusters()).map((c) => c.id)).toEqual([leftover]);
  });

  it("is never a twin stack's (same project, stack and resource names, another backend): its seed names it differently", async () => {
    const u = urn();
    const twins = await checked(u, {}, { __seed: TWIN_SEED });
    const theirs = await clusterProvider.create(twins);
    const ours = await checked(u);
    expect(ours.name).not.toBe(twins.name);
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.create(ours);
    expect(res.id).not.toBe(theirs.id);
    expect(await posts()).toBe(1);
    expect((await emu.control.clusters()).map((c) => c.id).sort()).toEqual([theirs.id, res.id].sort());
  });

  it("is not taken on a 0.2.0 auto-name (URN alone, which a twin computes too): the create fails naming it, creates nothing", async () => {
    const u = urn();
    const legacy = await checked(u, {}, { __seed: undefined });
    expect(legacy.name).toBe(derivedAutoName(u, 0));
    const twinsCluster = await existing(String(legacy.name));
    await emu.control.resetRequestCounts();
    const err = await rejection(clusterProvider.create(legacy));
    expect(err.message).toContain(`cannot create cluster "${legacy.name}"`);
    expect(err.message).toContain(twinsCluster);
    expect(err.message).toContain("`import` resource option");
    expect(err.message).toContain("another `name`");
    expect(await posts()).toBe(0);
    expect((await emu.control.clusters()).map((c) => c.id)).toEqual([twinsCluster]);
  });

  it("is not taken when the name is explicit, even with the same name and shape (a console cluster)", async () => {
    const console = await existing("pinned");
    const res = await clusterProvider.create(inputs({ ...SHAPE, name: "pinned", __urn: urn() }));
    expect(res.id).not.toBe(console);
    expect(await posts()).toBe(2);
  });

  it("with CMS_EXISTING_NAME=stop (the merge job's), an explicit name that a cluster of that shape carries is refused, naming the command; another shape is created", async () => {
    const other = await existing("pinned");
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { ...previous, env: { ...(previous.env ?? process.env), CMS_EXISTING_NAME: "stop" } };
    try {
      const u = urn("prod");
      const refused = await rejection(clusterProvider.create(inputs({ ...SHAPE, name: "pinned", __urn: u })));
      expect(refused.message).toContain(`cannot create cluster "pinned": ${other} ("pinned", created`);
      expect(refused.message).toContain("which this stack does not record");
      expect(refused.message).toContain(`record it: node_modules/.bin/cms-recover --stack prod --adopt ${other}, then run the job again`);
      expect(await posts()).toBe(1);
      const bigger = await clusterProvider.create(inputs({ ...SHAPE, workers: 3, name: "pinned", __urn: urn() }));
      expect(bigger.id).not.toBe(other);
      expect(await posts()).toBe(2);
    } finally {
      runtime.settings = previous;
    }
  });

  it("is not taken while it is being deleted", async () => {
    const u = urn();
    const news = await checked(u);
    const dying = await existing(String(news.name));
    await emu.control.setTimings({ deleteSeconds: 30 });
    await emu.control.deleteCluster(dying);
    try {
      const res = await clusterProvider.create(news);
      expect(res.id).not.toBe(dying);
    } finally {
      await emu.control.setTimings({ deleteSeconds: 0.2 });
    }
  });

  it("is not the cluster the state holds: `up --replace` (no re-check) creates a new one", async () => {
    const u = urn();
    const news = await checked(u);
    const first = await clusterProvider.create(news);
    // `pulumi up --replace`: check with the old inputs, then create with those inputs.
    const replacing = await checked(u, news);
    expect(replacing.name).toBe(news.name);
    const second = await clusterProvider.create(replacing);
    expect(second.id).not.toBe(first.id);
    expect(await posts()).toBe(2);
  });

  it("fails naming every candidate when several carry the resource's name", async () => {
    const u = urn();
    const news = await checked(u);
    const a = await existing(String(news.name));
    const b = await existing(String(news.name));
    await emu.control.resetRequestCounts();
    const err = await rejection(clusterProvider.create(news));
    expect(err.message).toContain(a);
    expect(err.message).toContain(b);
    expect(err.message).toMatch(/import/);
    expect(await posts()).toBe(0);
  });

  it("is not looked for when the stack's seed was drawn in this process (new in this run): no listing", async () => {
    // What the seed's provider does in the host when the engine creates the stack's seed
    // (`test/hosts/process.test.ts`: the process runtime's seeds are the ones it writes).
    const fresh = "f7e5f7e5f7e5f7e5f7e5f7e5f7e5f7e5";
    const runtime = testRuntime();
    runtime.drawnSeeds.add(fresh);
    const previous = runtime.settings;
    runtime.settings = { ...previous, sharedPolling: false };
    try {
      await emu.control.resetRequestCounts();
      const created = await clusterProvider.create(await checked(urn(), {}, { __seed: fresh }));
      expect(created.outs.status).toBe("running");
      const counts = await emu.control.requestCounts();
      expect(counts["GET /v1/clusters"]).toBeUndefined();
      expect(counts["POST /v1/clusters"]).toBe(1);
      // A seed the state recorded before this run (not drawn here) is still looked up.
      await emu.control.resetRequestCounts();
      await clusterProvider.create(await checked(urn()));
      expect((await emu.control.requestCounts())["GET /v1/clusters"]).toBe(1);
    } finally {
      runtime.settings = previous;
    }
  });

  it("is looked for with the create's token: a refused one fails the create naming the refusal, not an interrupted run", async () => {
    const news = await checked(urn(), {}, { connection: { endpoint: emu.url, token: "tok-not-the-emulators" } });
    const err = await rejection(clusterProvider.create(news));
    expect(err.message).toMatch(
      new RegExp(
        `^creating cluster "${news.name}" failed: CMS API GET /v1/clusters failed with 401 unauthorized: The API token is invalid or expired\\.`,
      ),
    );
    expect(err.message).not.toMatch(/interrupted/);
    expect(err.message).not.toContain("tok-not-the-emulators");
    expect(await posts()).toBe(0);
  });

  it("costs one shared listing for many creates that start together", async () => {
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => checked(urn())));
    // Shared status polling off, so every listing counted is a lookup.
    const runtime = testRuntime();
    const previous = runtime.settings;
    runtime.settings = { ...previous, sharedPolling: false };
    try {
      await emu.control.resetRequestCounts();
      await Promise.all(all.map((news) => clusterProvider.create(news)));
      const counts = await emu.control.requestCounts();
      expect(counts["GET /v1/clusters"]).toBe(1);
      expect(counts["POST /v1/clusters"]).toBe(5);
    } finally {
      runtime.settings = previous;
    }
  });
});

describe("the import option", () => {
  it("is dropped once the resource is in the state, so a replacement never adopts the old id", async () => {
    const id = await existing("legacy", { control_planes: 1, workers: 2, node_size: "small" });
    const u = urn();
    const program = { ...inputs({ ...SHAPE, name: "legacy", __urn: u }), __import: id };
    const first = await clusterProvider.check({}, program);
    expect(first.inputs).toMatchObject({ __import: id });
    const adopted = await clusterProvider.create(first.inputs as Record<string, unknown>);
    expect(adopted.id).toBe(id);

    // The program keeps `import`, then changes controlPlanes: the engine checks with olds, then
    // (delete-before-replace, same explicit name) deletes the old cluster and re-checks.
    const changed = { ...program, controlPlanes: 3 };
    const withOlds = await clusterProvider.check(first.inputs as Record<string, unknown>, changed);
    expect(withOlds.inputs).not.toHaveProperty("__import");
    await clusterProvider.delete(id, { ...adopted.outs });
    const recheck = await clusterProvider.check({}, changed);
    expect(recheck.inputs).not.toHaveProperty("__import");
    const replacement = await clusterProvider.create(recheck.inputs as Record<string, unknown>);
    expect(replacement.id).not.toBe(id);
    expect(replacement.outs).toMatchObject({ name: "legacy", controlPlanes: 3, status: "running" });
    expect((await emu.control.clusters()).map((c) => c.id)).toEqual([replacement.id]);
  });

  it("refuses a cluster that is being deleted", async () => {
    const id = await existing("going");
    await emu.control.setTimings({ deleteSeconds: 30 });
    await emu.control.deleteCluster(id);
    try {
      const err = await rejection(clusterProvider.create(inputs({ ...SHAPE, name: "going", __urn: urn(), __import: id })));
      expect(err.message).toBe(`cannot import cluster ${id}: it is being deleted`);
    } finally {
      await emu.control.setTimings({ deleteSeconds: 0.2 });
    }
  });
});
