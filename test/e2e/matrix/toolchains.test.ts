/**
 * The toolchains users have: the package installed from its tarball with the newest
 * `@pulumi/pulumi` on Node.js 22, 24 and 26, and with the lowest version the peer range admits
 * on Node.js 22, driven by the real CLI against the emulator: create, a preview with no changes,
 * an update in place, refresh, the secrets kept out of the state, destroy. (The project's own
 * pinned pair, Node.js 22 and the `@pulumi/pulumi` of devDependencies, runs the whole lifecycle
 * suite.)
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProject,
  findPulumi,
  lifecycleSkipped,
  startLifecycleEmulator,
  teardown,
  type LifecycleEmulator,
  type PulumiProject,
} from "../lifecycle/harness.mjs";
import { envWithNode, installProject, LOWEST_SDK, NEWEST_SDK, nodeBin, packTarball, workDir } from "../../support/packages";

const STEP_TIMEOUT = 10 * 60_000;
const MATRIX = [
  { node: 22, sdk: NEWEST_SDK },
  { node: 24, sdk: NEWEST_SDK },
  { node: 26, sdk: NEWEST_SDK },
  { node: 22, sdk: LOWEST_SDK },
];

/** One cluster; the program reports which Node.js and SDK ran it. */
const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const cms = require("pulumi-cms");
const config = new pulumi.Config();
const c = new cms.Cluster("cluster", { controlPlanes: 1, workers: config.requireNumber("workers"), nodeSize: "small" });
exports.id = c.id;
exports.workers = c.workers;
exports.kubeconfig = c.kubeconfig;
exports.node = process.version;
exports.sdk = require("@pulumi/pulumi/package.json").version;
`;

describe.skipIf(lifecycleSkipped())(
  "toolchains: the packed package on Node.js 22/24/26 with the newest and the lowest @pulumi/pulumi",
  () => {
    let emu: LifecycleEmulator;
    let work: string;
    let tarball: string;
    const projects: PulumiProject[] = [];

    beforeAll(async () => {
      await findPulumi();
      emu = await startLifecycleEmulator();
      work = workDir("matrix");
      tarball = packTarball(work);
    }, STEP_TIMEOUT);
    afterAll(async () => {
      await teardown(projects, emu);
      fs.rmSync(work, { recursive: true, force: true });
    }, STEP_TIMEOUT);

    for (const { node, sdk } of MATRIX) {
      it(
        `Node.js ${node}, @pulumi/pulumi ${sdk}: create, no-change preview, update in place, refresh, no secret in state, destroy`,
        async () => {
          const bin = nodeBin(node);
          const installed = await installProject(
            path.join(work, `node${node}-sdk${sdk}`),
            { dependencies: { "pulumi-cms": `file:${tarball}`, "@pulumi/pulumi": sdk } },
            envWithNode(bin),
          );
          const { binDir } = await findPulumi();
          const p = await createProject({
            name: `cms-matrix-node${node}-${sdk.replace(/\./g, "-")}`,
            program: PROGRAM,
            nodeModules: path.join(installed, "node_modules"),
            config: { ...emu.stackConfig(), workers: 1 },
            secretConfig: emu.secretConfig(),
            env: { PATH: `${binDir}${path.delimiter}${bin}${path.delimiter}${process.env.PATH ?? ""}` },
          });
          projects.push(p);

          await p.up();
          const outputs = await p.outputs();
          expect(outputs.node).toMatch(new RegExp(`^v${node}\\.`));
          expect(outputs.sdk).toBe(sdk);
          const [before] = await p.clusterResources();
          expect((await emu.clusters()).find((c) => c.id === before.id)).toMatchObject({ status: "running", workers: 1 });

          await p.preview(["--expect-no-changes"]);

          await emu.control.resetRequestCounts();
          await p.setConfig("workers", 2);
          await p.up();
          const [after] = await p.clusterResources();
          expect(after.id).toBe(before.id);
          const counts = await emu.control.requestCounts();
          expect(counts["PATCH /v1/clusters/:cluster_id"]).toBe(1);
          expect(counts["POST /v1/clusters"]).toBeUndefined();

          const id = String(before.id);
          await emu.control.scale(id, 3);
          await emu.waitForCluster(id, (c) => c?.status === "running");
          await p.refresh();
          expect((await p.clusterResources())[0].outputs.workers).toBe(3);

          const exported = await p.exportStack();
          const kubeconfig = await (
            await fetch(`${emu.url}/v1/clusters/${before.id}/kubeconfig`, { headers: { authorization: `Bearer ${emu.token}` } })
          ).text();
          const credential = /token:\s*"?([^"\s]+)/.exec(kubeconfig)?.[1];
          expect(credential).toBeTruthy();
          expect(exported.text).not.toContain(emu.token);
          expect(exported.text).not.toContain(credential);
          expect(exported.text).not.toContain("apiVersion: v1");

          await p.destroy();
          expect((await emu.clusters()).filter((c) => c.id === before.id)).toEqual([]);
        },
        STEP_TIMEOUT,
      );
    }
  },
);
