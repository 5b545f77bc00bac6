/**
 * Which copy of `@pulumi/kubernetes` `loadKubernetes` picks: the program's (resolved from its
 * directory) before pulumi-cms's own, and only "not installed" falls through to the next place.
 * Uses small stand-in packages in a temporary directory, so the choice is visible.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKubernetes } from "../../src/kubernetes";

let root = "";
/** A directory whose node_modules has a stand-in @pulumi/kubernetes with `source` as index.js. */
function projectWith(name: string, source?: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  if (source !== undefined) {
    const pkg = path.join(dir, "node_modules", "@pulumi", "kubernetes");
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "@pulumi/kubernetes", main: "index.js" }));
    fs.writeFileSync(path.join(pkg, "index.js"), source);
  }
  return dir;
}
const requireFrom = (dir: string) => createRequire(path.join(dir, "package.json"));

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "cms-k8s-load-"));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("loadKubernetes", () => {
  it("prefers the program's copy over pulumi-cms's own", () => {
    const program = projectWith("program", "exports.Provider = 'program copy';");
    const own = projectWith("own", "exports.Provider = 'own copy';");
    expect(loadKubernetes(requireFrom(own), program).Provider).toBe("program copy");
  });

  it("falls back to pulumi-cms's own copy when the program has none", () => {
    const program = projectWith("bare");
    const own = projectWith("own2", "exports.Provider = 'own copy';");
    expect(loadKubernetes(requireFrom(own), program).Provider).toBe("own copy");
  });

  it("says what to install when neither has it", () => {
    expect(() => loadKubernetes(requireFrom(projectWith("none1")), projectWith("none2"))).toThrow(
      /needs the @pulumi\/kubernetes package.*npm install @pulumi\/kubernetes/,
    );
  });

  it("reports a broken install instead of silently using another copy", () => {
    const program = projectWith("broken", "throw new Error('broken install');");
    const own = projectWith("own3", "exports.Provider = 'own copy';");
    expect(() => loadKubernetes(requireFrom(own), program)).toThrow(/broken install/);
  });

  it("loads the real package in this repository", () => {
    expect(typeof loadKubernetes().Provider).toBe("function");
  });
});
