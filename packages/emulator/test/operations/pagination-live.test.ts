/** List pagination edges and the status filter. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

const clock = new ManualClock();
let emu: RunningEmulator;
let api: Api;
const ids: string[] = [];

beforeAll(async () => {
  ({ emu, api } = await start({ clock, provisionSeconds: 10 }));
  for (let i = 0; i < 45; i++) {
    ids.push((await api.post("/v1/clusters", clusterBody({ name: `c-${i}` }))).body.id);
    clock.advance(100);
  }
});
afterAll(() => emu.close());

const page = async (q: string) => (await api.get(`/v1/clusters?${q}`)).body;

describe("pagination", () => {
  it("default page is 1 with 20 items, oldest first", async () => {
    const p = await page("");
    expect(p).toMatchObject({ page: 1, per_page: 20, total: 45 });
    expect(p.items.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 20));
  });
  it("pages are disjoint and cover everything exactly once", async () => {
    const seen: string[] = [];
    for (let n = 1; n <= 3; n++) seen.push(...(await page(`page=${n}`)).items.map((c: { id: string }) => c.id));
    expect(seen).toEqual(ids);
  });
  it("the last page is partial", async () => {
    const p = await page("page=3&per_page=20");
    expect(p.items).toHaveLength(5);
    expect(p).toMatchObject({ page: 3, per_page: 20, total: 45 });
  });
  it("a page past the end is empty with the real total", async () => {
    expect(await page("page=4")).toEqual({ items: [], total: 45, page: 4, per_page: 20 });
    expect((await page("page=999999999")).items).toEqual([]);
  });
  it("per_page 1 and 100 (the maximum)", async () => {
    const one = await page("per_page=1&page=45");
    expect(one.items.map((c: { id: string }) => c.id)).toEqual([ids[44]]);
    const all = await page("per_page=100");
    expect(all.items).toHaveLength(45);
    expect(all.per_page).toBe(100);
  });
  it("status filter: total counts matches, pages over matches only", async () => {
    // Cluster i was created at t0 + i*100 ms with 10 s provisioning; at t0 + 11.05 s clusters 0..10 run.
    clock.set(clock.now() + 10_000 - 45 * 100 + 1050);
    const running = await page("status=running&per_page=5&page=2");
    expect(running.total).toBe(11);
    expect(running.items.map((c: { id: string }) => c.id)).toEqual(ids.slice(5, 10));
    const prov = await page("status=provisioning&per_page=100");
    expect(prov.total).toBe(34);
    expect(prov.items.every((c: { status: string }) => c.status === "provisioning")).toBe(true);
    expect((await page("status=upgrading")).total).toBe(0);
  });
  it("deleted clusters leave the list and the total", async () => {
    clock.advanceSeconds(10);
    await api.del(`/v1/clusters/${ids[0]}`);
    expect((await page("")).total).toBe(45);
    clock.advanceSeconds(60);
    const p = await page("per_page=2");
    expect(p.total).toBe(44);
    expect(p.items[0].id).toBe(ids[1]);
  });
});
