/**
 * Lifecycle edges across runs, with the real CLI against the emulator:
 * 1. the `import` option kept in the program through a replacing change: a new cluster is made;
 * 2. `Cluster.get` of an id that does not exist fails the run naming the id;
 * 3. a token rotated in the stack config (or the environment, or an explicit `connection`) works
 *    for `refresh` and `destroy` without an extra `up`, or fails naming the command that works
 *    (with every other input given as a secret too: each stays encrypted in the state);
 * 4. a cluster deleted in the console, caught while `deleting`, leaves the stack on refresh and
 *    the next `up` creates a new one;
 * 5. the service moved to another address (the emulator restarted on another port) and
 *    `cms:endpoint` set to it: `pulumi refresh --run-program`, then `pulumi up`, as
 *    docs/installation-configuration.md says.
 */
import net from "node:net";
import type { NewTokenSpec } from "@pulumi-cms/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  DEFAULT_PROGRAM,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("lifecycle edges across runs", () => {
  let emu: LifecycleEmulator;
  const projects: PulumiProject[] = [];

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
  }, STEP_TIMEOUT);
  afterAll(() => teardown(projects, emu), STEP_TIMEOUT);

  async function project(options: Parameters<typeof createProject>[0] = {}) {
    const p = await createProject({ config: emu.stackConfig(), secretConfig: emu.secretConfig(), ...options });
    projects.push(p);
    return p;
  }

  const ids = async (p: PulumiProject) => (await p.clusterResources()).map((r) => r.id as string);

  it(
    "1. `import` kept in the program, then controlPlanes 1 -> 3: the old cluster is replaced by a new one",
    async () => {
      const made = await emu.api("POST", "/v1/clusters", { name: "legacy", control_planes: 1, workers: 2, node_size: "small" });
      const id = made.body.id as string;
      await emu.waitForCluster(id, (c) => c?.status === "running");
      const p = await project({
        name: "cms-edge-import",
        config: { ...emu.stackConfig(), mode: "import", id, name: "legacy", controlPlanes: 1, workers: 2, nodeSize: "small" },
      });
      await p.up();
      await p.preview(["--expect-no-changes"]);
      expect(await ids(p)).toEqual([id]);

      await p.setConfig("controlPlanes", 3);
      const up = await p.up([], { allowFailure: true });
      expect(up.code, up.output).toBe(0);
      const [now] = await ids(p);
      expect(now).not.toBe(id);
      const legacy = (await emu.clusters()).filter((c) => c.name === "legacy");
      expect(legacy).toMatchObject([{ id: now, control_planes: 3, status: "running" }]);
      await p.preview(["--expect-no-changes"]);
    },
    STEP_TIMEOUT,
  );

  it(
    "2. Cluster.get of an id that does not exist fails the run naming the id, and records nothing",
    async () => {
      const p = await project({ name: "cms-edge-get", config: { ...emu.stackConfig(), mode: "get", id: "cls_0000000000000000" } });
      const up = await p.up([], { allowFailure: true });
      expect(up.code).not.toBe(0);
      expect(up.output).toMatch(/Cluster\.get: cluster cls_0000000000000000 does not exist or is not visible to the token/);
      expect(await p.clusterResources()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  describe("3. a rotated token", () => {
    const A = "tok-edge-rotation-old-aaaa";
    const B = "tok-edge-rotation-new-bbbb";
    const spec = (token: string): NewTokenSpec => ({ token, permissions: ["read", "write"], scope: "*", plan: "enterprise" });

    it(
      "in the stack config: plain refresh/destroy name --run-program; with it they use the new token",
      async () => {
        await emu.control.addToken(spec(`${A}1`));
        await emu.control.addToken(spec(`${B}1`));
        const p = await project({ name: "cms-edge-config", secretConfig: { "cms:token": `${A}1` } });
        await p.up();
        await emu.control.revokeToken(`${A}1`);
        await p.setConfig("cms:token", `${B}1`, { secret: true });

        const plain = await p.refresh([], { allowFailure: true });
        expect(plain.code).not.toBe(0);
        expect(plain.output).toMatch(/--run-program/);
        expect(plain.output).not.toContain(`${B}1`);

        await p.refresh(["--run-program"]);
        await p.destroy(["--run-program"]);
        expect(await ids(p)).toEqual([]);
      },
      STEP_TIMEOUT,
    );

    it(
      "in CMS_TOKEN: refresh and destroy use it when the recorded config token is refused",
      async () => {
        await emu.control.addToken(spec(`${A}2`));
        await emu.control.addToken(spec(`${B}2`));
        const p = await project({ name: "cms-edge-env", secretConfig: { "cms:token": `${A}2` } });
        await p.up();
        const [id] = await ids(p);
        await emu.control.revokeToken(`${A}2`);
        await p.refresh([], { env: { CMS_TOKEN: `${B}2` } });
        await p.destroy([], { env: { CMS_TOKEN: `${B}2` } });
        expect((await emu.clusters()).some((c) => c.id === id)).toBe(false);
      },
      STEP_TIMEOUT,
    );

    it(
      "in an explicit connection: refresh and destroy fall back to the stack config's token; inputs given as secrets stay secret",
      async () => {
        await emu.control.addToken(spec(`${A}3`));
        await emu.control.addToken(spec(`${B}3`));
        const name = `secret-name-${Date.now().toString(36)}`;
        const infraId = `secret-infra-${Date.now().toString(36)}`;
        const program = DEFAULT_PROGRAM.replace(
          /name: config\.get\("name"\),[\s\S]*?nodeSize: config\.get\("nodeSize"\) \?\? "small",/,
          [
            `name: pulumi.secret("${name}"),`,
            "controlPlanes: pulumi.secret(1),",
            "workers: pulumi.secret(2),",
            'nodeSize: pulumi.secret("medium"),',
            'phase: pulumi.secret("onpremise"),',
            `infraId: pulumi.secret("${infraId}"),`,
            'connection: { endpoint: config.require("connEndpoint"), token: config.requireSecret("connToken") },',
          ].join("\n        "),
        );
        expect(program).toContain("connToken");
        expect(program).toContain(infraId);
        const p = await project({
          name: "cms-edge-explicit",
          program,
          config: { ...emu.stackConfig(), connEndpoint: emu.url },
          secretConfig: { "cms:token": `${B}3`, connToken: `${A}3` },
        });
        await p.up();
        const [id] = await ids(p);
        /** Inputs and outputs of the program's inputs stored plain, and the plain values the export shows. */
        const plainInState = async () => {
          const { text } = await p.exportStack();
          const [cluster] = await p.clusterResources();
          const keys = ["name", "controlPlanes", "workers", "nodeSize", "phase", "infraId"];
          const encrypted = (bag: Record<string, { ciphertext?: string; token?: { ciphertext?: string } }>, k: string) =>
            bag[k]?.ciphertext !== undefined || (k === "connection" && bag[k]?.token?.ciphertext !== undefined);
          return [
            ...[...keys, "connection"].filter((k) => !encrypted(cluster.inputs, k)).map((k) => `inputs.${k}`),
            ...[...keys, "connection"].filter((k) => !encrypted(cluster.outputs, k)).map((k) => `outputs.${k}`),
            ...[name, infraId, "onpremise"].filter((v) => text.includes(v)),
          ];
        };
        expect(await plainInState()).toEqual([]);
        expect((await emu.clusters()).filter((c) => c.id === id)).toMatchObject([{ name, infra_id: infraId, phase: "onpremise" }]);
        await emu.control.revokeToken(`${A}3`);
        await p.refresh();
        expect(await plainInState()).toEqual([]);
        await p.destroy();
        expect((await emu.clusters()).some((c) => c.id === id)).toBe(false);
      },
      STEP_TIMEOUT,
    );
  });

  it(
    "4. deleted in the console, caught while deleting: refresh drops it with a warning, up creates a new one",
    async () => {
      const p = await project({ name: "cms-edge-console" });
      await p.up();
      const [id] = await ids(p);
      await emu.control.setTimings({ deleteSeconds: 30 });
      try {
        await emu.control.deleteCluster(id);
        const refresh = await p.refresh();
        expect(refresh.output).toMatch(
          /is being deleted \(outside Pulumi, or by a run of this stack killed during its delete\): it leaves the stack/,
        );
        expect(await ids(p)).toEqual([]);
        const preview = await p.preview([], { allowFailure: true });
        expect(preview.output).toMatch(/\+ 1 to create/);
        await p.up();
        const [fresh] = await ids(p);
        expect(fresh).not.toBe(id);
        expect((await emu.clusters()).find((c) => c.id === fresh)?.status).toBe("running");
      } finally {
        await emu.control.setTimings({ deleteSeconds: 0.5 });
      }
      // The rest of the console's delete is no part of the check: skipped, not waited out.
      emu.skipAhead(30_000);
      await emu.waitForCluster(id, (c) => c === undefined, 60_000);
      await p.preview(["--expect-no-changes"]);
    },
    STEP_TIMEOUT,
  );

  it(
    "5. the endpoint moved (the old address now refuses connections): `refresh --run-program` with the new cms:endpoint, then `up`",
    async () => {
      // The old address: a forwarder to the emulator, closed as a restarted emulator's old port is.
      const sockets = new Set<net.Socket>();
      const forwarder = net.createServer((inbound) => {
        const outbound = net.connect(Number(new URL(emu.url).port), "127.0.0.1");
        for (const s of [inbound, outbound]) {
          sockets.add(s);
          s.on("error", () => s.destroy());
          s.on("close", () => sockets.delete(s));
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      await new Promise<void>((resolve) => forwarder.listen(0, "127.0.0.1", resolve));
      const old = `http://127.0.0.1:${(forwarder.address() as net.AddressInfo).port}`;
      const p = await project({ name: "cms-edge-endpoint", config: { "cms:endpoint": old } });
      await p.up();
      const [id] = await ids(p);
      await new Promise((resolve) => {
        forwarder.close(resolve);
        for (const s of sockets) s.destroy();
      });
      await p.setConfig("cms:endpoint", emu.url);

      // `--refresh` reads with the provider the last `up` recorded: the old address.
      const stale = await p.up(["--refresh"], { allowFailure: true });
      expect(stale.code).not.toBe(0);
      expect(stale.output).toContain(`ECONNREFUSED`);
      expect(stale.output).toContain(old);
      const refresh = await p.refresh(["--run-program"], { allowFailure: true });
      expect(refresh.code, refresh.output).toBe(0);
      expect(refresh.output).not.toContain(old);
      await p.up();
      expect(await ids(p)).toEqual([id]);
      // Every later command, also a plain refresh, uses the new address the `up` recorded.
      await p.refresh(["--expect-no-changes"]);
    },
    STEP_TIMEOUT,
  );
});
