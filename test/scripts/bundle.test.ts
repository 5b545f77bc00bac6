/**
 * The package's bundles (scripts/bundle.mjs, `npm run build`): the native plugin's and the dynamic
 * provider's implementation. What each holds and loads: test/hosts/native/plugin-bundle.test.ts and
 * test/hosts/dynamic/pinned-stubs.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PINNED_MODULES } from "../../src/hosts/dynamic/serializable";
import { REPO_ROOT } from "../e2e/lifecycle/harness.mjs";

const BUNDLES = ["dist/plugin/bundle.js", `dist/${PINNED_MODULES.implementation.bundle}`];

/** The packages a bundle holds, from the path comment esbuild writes above each bundled module. */
function bundledPackages(bundle: string): Set<string> {
  const names = new Set<string>();
  for (const [, name] of fs.readFileSync(bundle, "utf8").matchAll(/^\/\/ (?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) names.add(name);
  return names;
}

describe.each(BUNDLES)("%s", (bundle) => {
  it("carries, in THIRD-PARTY-NOTICES.md beside it, the licence of every package it bundles", () => {
    const file = path.join(REPO_ROOT, bundle);
    const notices = fs.readFileSync(path.join(path.dirname(file), "THIRD-PARTY-NOTICES.md"), "utf8");
    const packages = bundledPackages(file);
    expect(packages.size).toBeGreaterThan(10);
    for (const name of packages) expect(notices, name).toContain(`## ${name} `);
  });
});
