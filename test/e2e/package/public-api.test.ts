/**
 * The package's public surface at run time, pinned: what `require("pulumi-cms")`, an ES-module
 * import and `cms.client` expose, and which subpaths a program may load. A name added here is a
 * promise to every user; one removed breaks their programs. Changing this list is a decision for
 * the CHANGELOG, never a side effect. Runs against the built package (`npm test` builds first),
 * resolved by its own name so the `exports` map applies as it does in a user's project.
 */
import { execFile as execFileCb } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

const execFile = promisify(execFileCb);

/** The runtime names of `pulumi-cms`: `CmsError`, the base of every error it throws, among them. */
const TOP_LEVEL = [
  "Cluster",
  "CmsError",
  "client",
  "connectionFromStackConfig",
  "getCluster",
  "getClusterOutput",
  "getClusters",
  "getClustersOutput",
  "getKubeconfig",
  "getKubeconfigOutput",
  "getNode",
  "getNodeOutput",
  "getNodes",
  "getNodesOutput",
  "kubernetesProvider",
  "kubernetesProviderArgs",
];

/** The runtime names of `cms.client`: the client, its errors and their predicates. */
const CLIENT = [
  "ApiError",
  "CmsClient",
  "CmsError",
  "ConflictError",
  "ContractError",
  "DeadlineError",
  "ForbiddenError",
  "InvalidIdError",
  "NetworkError",
  "NotFoundError",
  "RateLimitedError",
  "ServerError",
  "UnauthorizedError",
  "UnprovenOwnershipError",
  "ValidationError",
  "createClient",
  "isApiError",
  "isConflict",
  "isNotFound",
  "isTransient",
  "statusOf",
];

/** Runs `script` as a program of the repository, where `pulumi-cms` resolves to this package. */
async function run(script: string, type: "commonjs" | "module"): Promise<Record<string, unknown>> {
  const args = type === "module" ? ["--input-type=module", "-e", script] : ["-e", script];
  const { stdout } = await execFile(process.execPath, args, { cwd: REPO_ROOT });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
}

describe("the public API", () => {
  it("require('pulumi-cms') exposes the resource, the functions, the Kubernetes helper and the client, nothing else", async () => {
    const out = await run(
      `const cms = require("pulumi-cms");
       console.log(JSON.stringify({ top: Object.keys(cms).sort(), client: Object.keys(cms.client).sort() }));`,
      "commonjs",
    );
    expect(out.top).toEqual(TOP_LEVEL);
    expect(out.client).toEqual(CLIENT);
  });

  it("an ES-module import sees the same names (besides the interop's `default` and `__esModule`)", async () => {
    const out = await run(
      `import * as cms from "pulumi-cms";
       const top = Object.keys(cms).filter((k) => k !== "default" && k !== "__esModule").sort();
       console.log(JSON.stringify({ top, client: Object.keys(cms.client).sort() }));`,
      "module",
    );
    expect(out.top).toEqual(TOP_LEVEL);
    expect(out.client).toEqual(CLIENT);
  });

  it("offers only the documented subpaths: the provider's internals cannot be imported", async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(pkg.exports).sort()).toEqual([
      ".",
      "./dist/provider/cluster-provider.js",
      "./dist/provider/entry.js",
      "./emulator",
      "./native",
      "./package.json",
    ]);
    const out = await run(
      `const tries = ["pulumi-cms/dist/client/limiter.js", "pulumi-cms/dist/provider/polling/shared-poll.js", "pulumi-cms/dist/client/index.js"];
       const refused = tries.map((p) => { try { require(p); return "loaded"; } catch (e) { return e.code; } });
       const entry = typeof require("pulumi-cms/dist/provider/cluster-provider.js").clusterProvider.create;
       const methods = Object.keys(require("pulumi-cms/dist/provider/entry.js")).sort();
       console.log(JSON.stringify({ refused, entry, methods }));`,
      "commonjs",
    );
    expect(out.refused).toEqual(["ERR_PACKAGE_PATH_NOT_EXPORTED", "ERR_PACKAGE_PATH_NOT_EXPORTED", "ERR_PACKAGE_PATH_NOT_EXPORTED"]);
    expect(out.entry).toBe("function");
    // The provider stacks serialize as a require of this module: its exports are the methods, nothing else.
    expect(out.methods).toEqual(["check", "configure", "create", "delete", "diff", "read", "update"]);
  });
});
