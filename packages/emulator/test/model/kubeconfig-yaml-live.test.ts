/**
 * Kubeconfigs of clusters whose valid names look like YAML booleans or numbers still load, in
 * kubectl (a YAML 1.1 reader) and in `yaml` as 1.1 and 1.2, with the name as a string, and are
 * what the wire contract takes for a kubeconfig.
 */
import { execFileSync } from "node:child_process";
import { kubeconfigSchema } from "@pulumi-cms/contract";
import Ajv from "ajv";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src";
import { start } from "../support/emulator";
import { kubectl } from "../support/kubernetes";

const NAMES = ["yes", "No", "ON", "off", "y", "n", "Y", "true", "null", "0b101", "0o17", "0x1F", "012", "1e3", "1-2"];

const installed = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

let emu: RunningEmulator;
const texts = new Map<string, string>();
beforeAll(async () => {
  const started = await start();
  emu = started.emu;
  for (const name of NAMES) {
    const created = await started.api.post("/v1/clusters", { name, control_planes: 1, workers: 1, node_size: "small" });
    expect(created.status).toBe(201);
    const kubeconfig = await started.api.get(`/v1/clusters/${created.body.id}/kubeconfig`);
    expect(kubeconfig.status).toBe(200);
    texts.set(name, kubeconfig.text);
  }
});
afterAll(async () => {
  await emu?.close();
});

describe("kubeconfig of a cluster whose name looks like a YAML boolean or number", () => {
  it.each(NAMES)("%s: yaml reads the names as strings, as 1.1 and as 1.2", (name) => {
    for (const version of ["1.1", "1.2"] as const) {
      const doc = parse(texts.get(name)!, { version });
      expect(doc.clusters[0].name).toBe(name);
      expect(doc.contexts[0].context.cluster).toBe(name);
      expect(doc.users[0].name).toBe(`${name}-admin`);
    }
  });

  it.each(NAMES)("%s: the contract's kubeconfig schema takes it", (name) => {
    const validate = new Ajv({ strict: true, allowUnionTypes: true }).compile(kubeconfigSchema);
    expect(validate(parse(texts.get(name)!)), JSON.stringify(validate.errors)).toBe(true);
  });

  // Not synchronously: a kubectl may ask the server (this process) for its version first.
  it.skipIf(!installed).each(NAMES)("%s: kubectl loads it", async (name) => {
    const out = await kubectl(texts.get(name)!, ["config", "view", "-o", "jsonpath={.clusters[0].name}"]);
    expect(out).toMatchObject({ code: 0, stdout: name });
  });
});
