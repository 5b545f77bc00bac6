/**
 * The files of dist/ that stacks load by path (`PINNED_MODULES`): package.json exports exactly
 * them besides the documented subpaths, and the build's stubs are what the generator makes of the
 * list (`npm run build` writes them; this fails when they are stale or missing).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pinnedModules, stubFiles } from "../../../scripts/gen-pinned-stubs.mjs";
import { PINNED_MODULES } from "../../../src/hosts/dynamic/serializable";

const ROOT = path.join(__dirname, "..", "..", "..");
const DIST = path.join(ROOT, "dist");

describe("the pinned stubs", () => {
  it("package.json exports each pinned path, and no other file of dist/", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string> };
    const exported = Object.keys(pkg.exports).filter((k) => k.startsWith("./dist/"));
    expect(exported.sort()).toEqual(
      Object.values(PINNED_MODULES)
        .map((m) => `./dist/${m.pinned}`)
        .sort(),
    );
    for (const m of Object.values(PINNED_MODULES)) expect(pkg.exports[`./dist/${m.pinned}`]).toBe(`./dist/${m.pinned}`);
  });

  it("the build holds the list of the sources and, for each entry, the stub the generator makes", () => {
    const built = pinnedModules(DIST);
    expect(built).toEqual(Object.values(PINNED_MODULES));
    for (const entry of built) {
      for (const [file, text] of Object.entries(stubFiles(entry))) {
        expect(readFileSync(path.join(DIST, file), "utf8"), `dist/${file} is stale: npm run build`).toBe(text);
      }
    }
  });

  it("each stub's exports are the host module's, on an object of its own", () => {
    const require = createRequire(__filename);
    for (const { pinned, module } of Object.values(PINNED_MODULES)) {
      const stub = require(path.join(DIST, pinned));
      const host = require(path.join(DIST, module));
      expect(stub).not.toBe(host);
      expect(Object.keys(stub)).toEqual(Object.keys(host));
      for (const key of Object.keys(host)) expect(stub[key]).toBe(host[key]);
    }
  });
});
