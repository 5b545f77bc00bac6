/**
 * The files of dist/ that stacks load by path (`PINNED_MODULES`): package.json exports exactly
 * them besides the documented subpaths, and the build's stubs are what the generator makes of the
 * list (`npm run build` writes them; this fails when they are stale or missing).
 */
import { execFileSync } from "node:child_process";
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

  it("each stub's exports are the host module's (from its bundle, when it ships bundled), on an object of its own", () => {
    const require = createRequire(__filename);
    for (const entry of Object.values(PINNED_MODULES)) {
      const { pinned, module } = entry;
      const bundle = "bundle" in entry ? entry.bundle : undefined;
      const stub = require(path.join(DIST, pinned));
      const host = require(path.join(DIST, bundle ?? module));
      expect(stub).not.toBe(host);
      expect(Object.keys(stub)).toEqual(Object.keys(require(path.join(DIST, module))));
      for (const key of Object.keys(host)) expect(stub[key]).toBe(host[key]);
    }
  });

  it("a bundled module's stub loads its bundle and none of the files the bundle holds", () => {
    const implementation = path.join(DIST, PINNED_MODULES.implementation.pinned);
    const script = `require(${JSON.stringify(implementation)}); console.log(JSON.stringify(Object.keys(require.cache)));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as string[];
    const ours = loaded.filter((f) => f.startsWith(DIST)).map((f) => path.relative(DIST, f));
    // The stub, the compile cache's modules (they must run before the bundle is compiled) and the bundle.
    const compileCache = ["hosts/dynamic/compile-cache.js", "hosts/dynamic/host-process.js", "hosts/engine-address.js"];
    expect(ours.sort()).toEqual([PINNED_MODULES.implementation.pinned, PINNED_MODULES.implementation.bundle, ...compileCache].sort());
    expect(loaded.filter((f) => f.includes(`${path.sep}node_modules${path.sep}`))).toEqual([]);
  });
});
