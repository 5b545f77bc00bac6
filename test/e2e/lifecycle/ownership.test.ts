/**
 * A cluster is taken over only with proof that it is this stack's, with the real CLI against the
 * emulator: twin stacks (the same project, stack and resource names in two backends, one token)
 * and a lost create reply while another stack creates a cluster of the same name never end with
 * one stack holding, and then destroying, the other's cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededName } from "../../support/autoname";
import {
  createProject,
  eventually,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("ownership: no stack takes another stack's cluster", () => {
  let emu: LifecycleEmulator;
  const projects: PulumiProject[] = [];

  beforeAll(async () => {
    await findPulumi();
    emu = await startLifecycleEmulator();
  }, STEP_TIMEOUT);
  afterAll(() => teardown(projects, emu), STEP_TIMEOUT);

  /** A project with its own local backend; the same `name` and `stack` give twin URNs. */
  async function project(name: string, stack: string, config: Record<string, string | number> = {}) {
    const p = await createProject({ name, stack, config: { ...emu.stackConfig(), ...config }, secretConfig: emu.secretConfig() });
    projects.push(p);
    return p;
  }
  const ids = async (p: PulumiProject) => (await p.clusterResources()).map((r) => r.id as string);
  const onService = async (id: string) => (await emu.clusters()).find((c) => c.id === id);

  it(
    "twin stacks in two backends, one token: each up creates its own cluster, and destroying one leaves the other's",
    async () => {
      const team = await project("cms-twins", "dev");
      const laptop = await project("cms-twins", "dev");
      await team.up();
      const [teams] = await ids(team);
      const up = await laptop.up();
      expect(up.output).not.toMatch(/taken over/);
      const [laptops] = await ids(laptop);
      expect(laptops).not.toBe(teams);
      // Each stack's seed makes its auto-name its own.
      const [teamName, laptopName] = [await seededName(team), await seededName(laptop)];
      expect(teamName).not.toBe(laptopName);
      expect((await onService(teams))?.name).toBe(teamName);
      expect((await onService(laptops))?.name).toBe(laptopName);

      await laptop.destroy();
      expect(await onService(laptops)).toBeUndefined();
      expect(await onService(teams)).toMatchObject({ status: "running" });
      await team.refresh(["--expect-no-changes"]);
      expect(await ids(team)).toEqual([teams]);
    },
    STEP_TIMEOUT,
  );

  it(
    "a lost create reply while another stack creates the same explicit name: no shared id, the other's cluster survives",
    async () => {
      const a = await project("cms-lost-a", "dev", { name: "shared-name" });
      const b = await project("cms-lost-b", "dev", { name: "shared-name" });
      await emu.control.resetRequestCounts();
      // A's POST is cut before the service processes it (no reply at all, so A looks for the
      // cluster for its settle window); B's create of the same name lands meanwhile.
      await emu.control.injectFault({ kind: "drop", method: "POST", path: "/v1/clusters", count: 1 });
      const aRun = a.up([], { allowFailure: true });
      await eventually(async () => ((await emu.control.requestCounts())["POST /v1/clusters"] ?? 0) >= 1, {
        timeoutMs: 120_000,
        intervalMs: 50,
        what: "A's POST",
      });
      await b.up();
      const [bs] = await ids(b);

      const aResult = await aRun;
      expect(aResult.code).not.toBe(0);
      expect(aResult.output).toContain(`the reply to the create of cluster "shared-name" was lost`);
      expect(aResult.output).toContain(bs);
      expect(aResult.output).toContain("None was taken");
      expect(aResult.output).toContain("`import` resource option");
      expect(await ids(a)).toEqual([]);

      await a.destroy();
      expect(await onService(bs)).toMatchObject({ status: "running", name: "shared-name" });
      expect((await emu.clusters()).filter((c) => c.name === "shared-name").map((c) => c.id)).toEqual([bs]);
      await b.preview(["--expect-no-changes"]);
    },
    STEP_TIMEOUT,
  );
});
