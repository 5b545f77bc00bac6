/** Adopting an existing cluster through the `import` option (carried as `__import`). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../../packages/emulator/src";
import { createClient } from "../../../src/client";
import { waitForStatus } from "../../support/emulator";
import { clusterProvider, emulatorForProvider, inputs, rejection } from "../../support/provider";

let emu: RunningEmulator;
let existingId: string;
beforeAll(async () => {
  emu = await emulatorForProvider();
  const client = createClient({ endpoint: emu.url, token: emu.token });
  existingId = (await client.createCluster({ name: "legacy", control_planes: 3, workers: 2, node_size: "large" })).id;
  await waitForStatus(emu, existingId, "running");
});
afterAll(async () => {
  await emu.close();
});

const legacy = { name: "legacy", controlPlanes: 3, workers: 2, nodeSize: "large", phase: "managed" };

describe("import", () => {
  it("adopts the cluster without creating one when the program describes it", async () => {
    await emu.control.resetRequestCounts();
    const res = await clusterProvider.create(inputs({ ...legacy, __import: existingId }));
    expect(res.id).toBe(existingId);
    expect(res.outs).toMatchObject({ ...legacy, status: "running", kubeconfig: expect.any(String) });
    const counts = await emu.control.requestCounts();
    expect(counts["POST /v1/clusters"]).toBeUndefined();
    expect((await emu.control.clusters()).length).toBe(1);
  });

  it("refuses, naming each difference, when the program does not match", async () => {
    const err = await rejection(clusterProvider.create(inputs({ ...legacy, workers: 5, nodeSize: "small", __import: existingId })));
    expect(err.message).toBe(
      `cannot import cluster ${existingId}: the program's inputs do not match it ` +
        '(workers: program 5, cluster 2; nodeSize: program "small", cluster "large"). ' +
        "Change the program to describe the cluster as it is, import it, then change it.",
    );
    expect(err).not.toHaveProperty("id");
  });

  it("says when the cluster does not exist", async () => {
    const err = await rejection(clusterProvider.create(inputs({ ...legacy, __import: "cls_00000000000000ff" })));
    expect(err.message).toBe(
      "cannot import cluster cls_00000000000000ff: it does not exist or is not visible to the token in use " +
        "(GET answered 404 not_found): check the id, and that the token's scope covers it",
    );
  });
});
