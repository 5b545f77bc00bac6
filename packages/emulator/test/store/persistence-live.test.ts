/** --state FILE keeps clusters, nodes and their progress across restarts. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock, startEmulator } from "../../src";
import { Api, clusterBody, start } from "../support/emulator";

const T0 = Date.UTC(2025, 3, 1);

describe("persistence", () => {
  it("a restart keeps clusters, nodes, kubeconfigs and the progress of running operations", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-state-"));
    const statePath = join(dir, "state.json");
    const clock = new ManualClock(T0);
    const first = await start({ clock, statePath, token: "persist-token", provisionSeconds: 60, scaleSeconds: 30, deleteSeconds: 25 });
    const api = first.api;
    const stable = (await api.post("/v1/clusters", clusterBody({ name: "stable", infra_id: "rack-1", phase: "baremetal" }))).body.id;
    const doomed = (await api.post("/v1/clusters", clusterBody({ name: "doomed" }))).body.id;
    clock.advanceSeconds(60);
    await api.patch(`/v1/clusters/${stable}`, { workers: 4 });
    await api.del(`/v1/clusters/${doomed}`);
    const young = (await api.post("/v1/clusters", clusterBody({ name: "young", control_planes: 3, workers: 3 }))).body.id;
    clock.advanceSeconds(20); // young: 2 of 6 nodes ready; stable scaling; doomed deleting
    const before = {
      stable: (await api.get(`/v1/clusters/${stable}`)).body,
      stableNodes: (await api.get(`/v1/clusters/${stable}/nodes`)).body,
      young: (await api.get(`/v1/clusters/${young}/nodes`)).body,
      kubeconfig: (await api.get(`/v1/clusters/${stable}/kubeconfig`)).text,
    };
    expect(before.stable.status).toBe("scaling");
    expect(before.young.items.filter((n: { status: string }) => n.status === "ready")).toHaveLength(2);
    const doomedBefore = (await api.get(`/v1/clusters/${doomed}/nodes`)).body;
    expect(doomedBefore.items.map((n: { status: string }) => n.status)).toEqual(["draining"]); // 3 nodes over 25 s: two workers gone, the control plane still draining
    // On disk once acknowledged (in the journal), not only on close.
    const onDisk = () =>
      readdirSync(dir)
        .map((f) => readFileSync(join(dir, f), "utf8"))
        .join("\n");
    expect(onDisk()).toContain(young);
    await first.emu.close();
    expect(readdirSync(dir)).toEqual(["state.json"]); // closed: one snapshot, no journal, no temporary file

    // Restart at the same instant: everything is exactly as it was.
    const second = await start({ clock, statePath, token: "persist-token" });
    const api2 = new Api(second.emu.url, "persist-token");
    expect((await api2.get(`/v1/clusters/${stable}`)).body).toEqual(before.stable);
    expect((await api2.get(`/v1/clusters/${stable}/nodes`)).body).toEqual(before.stableNodes);
    expect((await api2.get(`/v1/clusters/${young}/nodes`)).body).toEqual(before.young);
    // The same credential; the server is the stand-in of the emulator now running (its port is new).
    const standIn = (url: string) => `server: ${url}/_no-kubernetes/${stable}`;
    expect((await api2.get(`/v1/clusters/${stable}/kubeconfig`)).text).toBe(
      before.kubeconfig.replace(standIn(first.emu.url), standIn(second.emu.url)),
    );
    expect(before.kubeconfig).toContain(standIn(first.emu.url));
    expect((await api2.get(`/v1/clusters/${doomed}/nodes`)).body).toEqual(doomedBefore);
    await second.emu.close();

    // Restart 40 s later: progress continued while the emulator was down.
    clock.advanceSeconds(40);
    const third = await start({ clock, statePath, token: "persist-token" });
    const api3 = new Api(third.emu.url, "persist-token");
    expect((await api3.get(`/v1/clusters/${young}`)).body.status).toBe("running");
    expect((await api3.get(`/v1/clusters/${doomed}`)).status).toBe(404); // its deletion ended while down
    expect((await api3.get(`/v1/clusters/${stable}`)).body).toMatchObject({
      status: "running",
      workers: 4,
      node_count: 5,
      infra_id: "rack-1",
    });
    const list = (await api3.get("/v1/clusters")).body;
    expect(list.items.map((c: { id: string }) => c.id)).toEqual([stable, young]);
    // New clusters after a restart get their own node addresses.
    const fresh = (await api3.post("/v1/clusters", clusterBody({ name: "fresh" }))).body.id;
    const ips = async (id: string) =>
      (await api3.get(`/v1/clusters/${id}/nodes`)).body.items.map((n: { ip_address: string }) => n.ip_address);
    const taken = new Set([...(await ips(stable)), ...(await ips(young))]);
    expect((await ips(fresh)).some((ip: string) => taken.has(ip))).toBe(false);
    await third.emu.close();
  });

  it("a malformed state file stops the start with a clear error and is left untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-state-"));
    const statePath = join(dir, "state.json");
    writeFileSync(statePath, "{ not json");
    await expect(startEmulator({ statePath })).rejects.toThrow(/state file .* is not valid JSON/);
    writeFileSync(statePath, JSON.stringify({ version: 99, clusters: [] }));
    await expect(startEmulator({ statePath })).rejects.toThrow(/not an emulator state file of version 1/);
    expect(readFileSync(statePath, "utf8")).toBe(JSON.stringify({ version: 99, clusters: [] }));
  });

  it("an unwritable state path fails the start with a clear error", async () => {
    await expect(startEmulator({ statePath: "/nonexistent-dir/state.json" })).rejects.toThrow(
      /cannot write state file \/nonexistent-dir\/state.json/,
    );
  });

  it("reset is persisted too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cms-state-"));
    const statePath = join(dir, "state.json");
    const a = await start({ statePath, token: "persist-token" });
    await a.api.post("/v1/clusters", clusterBody());
    await a.emu.control.reset();
    await a.emu.close();
    const b = await start({ statePath, token: "persist-token" });
    expect((await b.api.get("/v1/clusters")).body.total).toBe(0);
    await b.emu.close();
  });
});
