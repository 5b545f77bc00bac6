/**
 * What loading the built package costs a process: a program that declares clusters, and the
 * dynamic-provider host, load only what their operation needs. Each case runs in a fresh Node
 * process (its own module cache) against `dist/` (`npm test` builds first).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

/** Runs `body` after `@pulumi/pulumi` is loaded; it sets `out`, which comes back as JSON. */
async function inFreshProcess(body: string): Promise<Record<string, unknown>> {
  const script = `
const dist = ${JSON.stringify(path.join(REPO_ROOT, "dist"))};
require("@pulumi/pulumi");
const before = new Set(Object.keys(require.cache));
const loaded = () => Object.keys(require.cache).filter((k) => !before.has(k));
const heavy = () => loaded().filter((k) => /node_modules[\\\\/](axios|yaml|p-retry)[\\\\/]/.test(k) || /dist[\\\\/]client[\\\\/]client\\.js$/.test(k));
const out = {};
(async () => { ${body} })().then(() => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });`;
  const env = { ...process.env, CMS_ENDPOINT: "http://127.0.0.1:9", CMS_TOKEN: "token-for-check-only" };
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: REPO_ROOT, env });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
}

describe("loading the package", () => {
  it("a program's require loads the resources and functions, not the HTTP client or the provider; the client loads on first use", async () => {
    const out = await inFreshProcess(`
      const cms = require(dist + "/index.js");
      out.heavy = heavy();
      out.provider = loaded().some((k) => k.endsWith("cluster-provider.js"));
      out.exports = ["Cluster", "getCluster", "kubernetesProvider"].map((k) => typeof cms[k]);
      out.client = typeof cms.client.createClient;
      out.heavyAfterClient = heavy().length > 0;
      out.keys = Object.keys(cms).includes("client");`);
    expect(out.heavy).toEqual([]);
    expect(out.provider).toBe(false);
    expect(out.exports).toEqual(["function", "function", "function"]);
    expect(out.client).toBe("function");
    expect(out.heavyAfterClient).toBe(true);
    expect(out.keys).toBe(true);
  });

  // The host loads the implementation from its bundle, where modules are not files; what a
  // call loads is the same there (a bundled module runs at its first require), so the unbundled
  // build of the same module shows it.
  it("the provider host's entry (the state contract) exports clusterProvider; check and diff load no HTTP client", async () => {
    const out = await inFreshProcess(`
      out.entry = typeof require(dist + "/provider/cluster-provider.js").clusterProvider.create;
      const { clusterProvider } = require(dist + "/hosts/dynamic/cluster-provider.js");
      const news = { controlPlanes: 1, workers: 1, nodeSize: "small", __urn: "urn:pulumi:s::p::pulumi-nodejs:dynamic/cms:Cluster::c", __seed: "0123456789abcdef0123456789abcdef" };
      const { inputs } = await clusterProvider.check({}, news);
      await clusterProvider.diff("cls_0000000000000000", inputs, inputs);
      out.heavy = heavy();`);
    expect(out.entry).toBe("function");
    expect(out.heavy).toEqual([]);
  });
});
