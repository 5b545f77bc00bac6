/**
 * `@pulumi/kubernetes` is an optional peer dependency: importing pulumi-cms must not load it,
 * a project without it must be able to use (and type-check against) the package, and asking
 * for a Kubernetes provider there must say what to install. Run in child processes, on the
 * built package, so module caches and resolution are Node's own.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, REPO, run } from "../e2e/examples/workspace";

const node = (cwd: string, script: string) => run(process.execPath, ["-e", script], { cwd, env: { ...process.env, NODE_PATH: "" } });

/** Prints the @pulumi/kubernetes files Node has loaded so far. */
const LOADED = `const k8s = () => Object.keys(require.cache).filter((f) => f.includes("/@pulumi/kubernetes/"));`;

describe("in this repository (where @pulumi/kubernetes is installed)", () => {
  beforeAll(assertBuilt);

  it("require('pulumi-cms') does not load @pulumi/kubernetes; asking for the provider does", async () => {
    const r = await node(
      REPO,
      `${LOADED}
       const cms = require("pulumi-cms");
       const before = k8s().length;
       if (typeof cms.kubernetesProvider !== "function") throw new Error("kubernetesProvider is not exported");
       require(require("node:path").join(require.resolve("pulumi-cms"), "../kubernetes/load.js")).loadKubernetes();
       console.log(JSON.stringify({ before, after: k8s().length, main: require.resolve("pulumi-cms") }));`,
    );
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out.main).toBe(path.join(REPO, "dist", "index.js"));
    expect(out.before).toBe(0);
    expect(out.after).toBeGreaterThan(0); // the check above can see a loaded copy
  });
});

describe("in a project without @pulumi/kubernetes", () => {
  let root = "";
  let project = "";

  beforeAll(() => {
    assertBuilt();
    root = fs.mkdtempSync(path.join(os.tmpdir(), "cms-no-k8s-"));
    project = path.join(root, "project");
    const nm = path.join(project, "node_modules");
    // pulumi-cms as installed from the registry: a real directory with package.json and dist/.
    fs.mkdirSync(path.join(nm, "pulumi-cms"), { recursive: true });
    fs.copyFileSync(path.join(REPO, "package.json"), path.join(nm, "pulumi-cms", "package.json"));
    fs.cpSync(path.join(REPO, "dist"), path.join(nm, "pulumi-cms", "dist"), { recursive: true });
    // Its dependencies and @pulumi/pulumi, but no @pulumi/kubernetes.
    for (const entry of fs.readdirSync(path.join(REPO, "node_modules"))) {
      if (entry.startsWith(".") || entry === "@pulumi") continue;
      fs.symlinkSync(path.join(REPO, "node_modules", entry), path.join(nm, entry), "dir");
    }
    fs.mkdirSync(path.join(nm, "@pulumi"));
    fs.symlinkSync(path.join(REPO, "node_modules", "@pulumi", "pulumi"), path.join(nm, "@pulumi", "pulumi"), "dir");
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "no-k8s", private: true }));
  });

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("imports pulumi-cms, and kubernetesProvider says to install @pulumi/kubernetes", async () => {
    const r = await node(
      project,
      `let missing = "";
       try { require.resolve("@pulumi/kubernetes"); } catch (e) { missing = e.code; }
       const cms = require("pulumi-cms");
       let message = "";
       try { cms.kubernetesProvider({}); } catch (e) { message = e.message; }
       console.log(JSON.stringify({ missing, cluster: typeof cms.Cluster, message }));`,
    );
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out.missing).toBe("MODULE_NOT_FOUND");
    expect(out.cluster).toBe("function");
    expect(out.message).toMatch(/needs the @pulumi\/kubernetes package.*npm install @pulumi\/kubernetes/);
  });

  it("type-checks a program using pulumi-cms without skipLibCheck", async () => {
    fs.writeFileSync(
      path.join(project, "index.ts"),
      `import * as cms from "pulumi-cms";
       const cluster = new cms.Cluster("c", { controlPlanes: 1, workers: 1, nodeSize: "small" });
       const options: cms.KubernetesProviderOptions = { namespace: "apps" };
       export const make = () => cms.kubernetesProvider(cluster, options);
       export const kubeconfig = cluster.kubeconfig;\n`,
    );
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "commonjs",
          moduleResolution: "node",
          target: "es2020",
          types: ["node"],
          skipLibCheck: false,
        },
        files: ["index.ts"],
      }),
    );
    const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
    const r = await run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"], { cwd: project });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  }, 60_000);
});
