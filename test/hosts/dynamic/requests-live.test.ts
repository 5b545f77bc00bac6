/**
 * The dynamic host parses each call's bags into the core's typed request, as the native host
 * does: what check returned and the outputs the state records are held to the fields'
 * declaration, as are the hidden inputs each call reads. A wrong type (an engine-side bug, a
 * damaged state) fails the call naming the request and the property, before any request to the
 * service (the real emulator counts none), and without showing the value.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { clusterProvider, created, emulatorForProvider, inputs } from "../../support/provider";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulatorForProvider();
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.control.resetRequestCounts();
});

/** The call fails with `message` (thrown or rejected, as the host awaits either), and the service was not asked anything. */
async function refused(call: () => unknown, message: string): Promise<void> {
  await expect(Promise.resolve().then(call)).rejects.toThrow(message);
  expect(await emu.control.requestCounts()).toEqual({});
}

const ID = "cls_0000000000000001";
const STATE = {
  ...inputs({ name: "parsed" }),
  status: "running",
  nodeCount: 3,
  endpoint: "https://parsed.example",
  kubeconfig: "apiVersion: v1",
};

describe("the dynamic host's requests", () => {
  it("create: the checked inputs and the hidden ones, each by its rule", async () => {
    await refused(
      () => clusterProvider.create(inputs({ workers: "3" })),
      "the engine's create request: inputs.workers must be an integer, got a string",
    );
    await refused(() => clusterProvider.create(inputs({ nodeSize: undefined })), "the engine's create request: inputs.nodeSize is missing");
    await refused(() => clusterProvider.create(inputs({ workers: UNKNOWN })), "inputs.workers is unknown outside a preview");
    await refused(
      () => clusterProvider.create(inputs({ connection: { endpoint: 1 } })),
      "inputs.connection must be an object of strings endpoint and token, got an object",
    );
    await refused(
      () => clusterProvider.create(inputs({ __timeouts: "30m" })),
      "the engine's create request: inputs.__timeouts must be an object of strings create, update and delete, got a string",
    );
    await refused(() => clusterProvider.create(inputs({ __timeouts: { create: 30 } })), "inputs.__timeouts must be an object of strings");
    await refused(
      () => clusterProvider.create(inputs({ __urn: 7 })),
      "the engine's create request: inputs.__urn must be a string, got an integer",
    );
    await refused(() => clusterProvider.create(inputs({ __import: ["cls_1"] })), "inputs.__import must be a string, got an array");
  });

  it("diff: the recorded outputs and the checked inputs, unknown ones allowed", async () => {
    await refused(
      () => clusterProvider.diff(ID, { ...STATE, workers: "2" }, inputs()),
      "the engine's diff request: olds.workers must be an integer, got a string",
    );
    await refused(
      () => clusterProvider.diff(ID, STATE, inputs({ controlPlanes: true })),
      "news.controlPlanes must be an integer, got a boolean",
    );
    await refused(
      () => clusterProvider.diff(ID, STATE, inputs({ nodeSize: "huge" })),
      "the engine's diff request: news.nodeSize must be one of small, medium",
    );
    const previewed = await clusterProvider.diff(ID, STATE, inputs({ name: "parsed", workers: UNKNOWN, connection: UNKNOWN }));
    expect(previewed).toMatchObject({ changes: true, diffs: ["workers"] });
  });

  it("read, update and delete: the recorded outputs, and the hidden inputs they read", async () => {
    await refused(
      () => clusterProvider.read(ID, { ...STATE, kubeconfig: 42 }),
      "the engine's read request: props.kubeconfig must be a string, got an integer",
    );
    await refused(
      () => clusterProvider.read(ID, { __get: 1 }),
      "the engine's read request: props.__get must be a string or a boolean, got an integer",
    );
    await refused(
      () => clusterProvider.update(ID, { ...STATE, nodeCount: 1.5 }, inputs()),
      "the engine's update request: olds.nodeCount must be an integer, got a number that is not an integer",
    );
    await refused(() => clusterProvider.update(ID, STATE, inputs({ phase: 3 })), "the engine's update request: news.phase must be one of");
    await refused(
      () => clusterProvider.update(ID, STATE, inputs({ __timeouts: [] })),
      "news.__timeouts must be an object of strings create, update and delete, got an array",
    );
    await refused(
      () => clusterProvider.delete(ID, { ...STATE, connection: "https://x" }),
      "the engine's delete request: props.connection must be an object",
    );
    await refused(
      () => clusterProvider.delete(ID, { ...STATE, __timeouts: { delete: false } }),
      "props.__timeouts must be an object of strings",
    );
  });

  it("a message never shows the value", async () => {
    const secret = "tok-must-not-show-0123";
    await expect(clusterProvider.create(inputs({ connection: { endpoint: "https://x", token: [secret] } }))).rejects.toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(secret) }),
    );
  });

  it("what it parses still goes through: create, read, update, delete with timeouts", async () => {
    const c = await created("parsed-ok", { __timeouts: { create: "5m", update: null } });
    expect(c.outs).toMatchObject({ status: "running", __timeouts: { create: "5m", update: null } });
    const read = await clusterProvider.read(c.id, c.outs);
    expect(read.id).toBe(c.id);
    const updated = await clusterProvider.update(c.id, c.outs, { ...c.news, workers: 3 });
    expect(updated.outs).toMatchObject({ workers: 3 });
    await clusterProvider.delete(c.id, updated.outs);
    expect((await emu.control.clusters()).some((x) => x.id === c.id)).toBe(false);
  });
});
