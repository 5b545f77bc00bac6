/**
 * `pulumi-cms/native` wraps every function the schema declares (`src/native/index.ts`), so that a
 * failing lookup reaches a program as one message (test/e2e/lifecycle/failure-messages.test.ts
 * shows what a user sees). A function added to sdk/schema.json is generated into the SDK and
 * exported by `export *` unwrapped: this file fails until the entry wraps it too. Runs against the
 * built package (`npm test` builds first).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "sdk", "schema.json"), "utf8")) as { functions: Record<string, unknown> };
/** `cms:index:getCluster` → `getCluster` and `getClusterOutput`, the names the Node.js SDK gives. */
const names = Object.keys(schema.functions).flatMap((token) => {
  const name = token.split(":")[2];
  return [name, `${name}Output`];
});

const entry = require(path.join(REPO_ROOT, "dist", "native", "index.js")) as Record<string, unknown>;
const generated = require(path.join(REPO_ROOT, "dist", "native", "sdk", "index.js")) as Record<string, unknown>;

describe("pulumi-cms/native's functions", () => {
  it.each(names)("%s is exported, and is the entry's wrapper, not the generated function", (name) => {
    expect(typeof generated[name], `the generated SDK has no ${name}: run npm run gen`).toBe("function");
    expect(typeof entry[name]).toBe("function");
    expect(entry[name], `src/native/index.ts does not wrap ${name}`).not.toBe(generated[name]);
  });
});
