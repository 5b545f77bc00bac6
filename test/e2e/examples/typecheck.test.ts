/**
 * Every example is a complete Pulumi project that type-checks against the package as built
 * (`dist/*.d.ts`), with the example's own tsconfig.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileExample, copyExample, EXAMPLES, removeDir, REPO } from "./workspace";
import { PINNED_PULUMI_VERSION } from "../lifecycle/harness.mjs";

const made: string[] = [];
afterAll(() => made.forEach(removeDir));

describe.each(EXAMPLES)("examples/%s", (name) => {
  it("is a Pulumi project of its own that links this package", () => {
    const source = path.join(REPO, "examples", name);
    for (const f of ["Pulumi.yaml", "package.json", "index.ts", "tsconfig.json", "README.md"]) {
      expect(fs.existsSync(path.join(source, f)), `${name}/${f}`).toBe(true);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8"));
    expect(pkg.dependencies["pulumi-cms"]).toBe("file:../..");
    expect(pkg.dependencies["@pulumi/pulumi"]).toBe(PINNED_PULUMI_VERSION);
    // Its README starts the emulator from node_modules/.bin: the emulator's package of this repository.
    expect(pkg.devDependencies["@pulumi-cms/emulator"]).toBe("file:../../packages/emulator");
    expect(fs.readFileSync(path.join(source, "Pulumi.yaml"), "utf8")).toMatch(/^runtime:\n {2}name: nodejs/m);
  });
});

// kubernetes-app.test.ts compiles that example with its tsconfig (emitting, which checks the
// same) before running it under mocks, so it is not compiled a second time here.
const CHECKED_HERE = EXAMPLES.filter((n) => n !== "kubernetes-app");

it.each(CHECKED_HERE)(
  "examples/%s type-checks with tsc --noEmit",
  async (name) => {
    const dir = copyExample(name);
    made.push(dir);
    const r = await compileExample(dir);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  },
  90_000,
);

it("the type check catches a type error (it is not vacuous)", async () => {
  const dir = copyExample("basic");
  made.push(dir);
  const index = path.join(dir, "index.ts");
  fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace("controlPlanes: 1", 'controlPlanes: "one"'));
  const r = await compileExample(dir);
  expect(r.code).not.toBe(0);
  expect(r.stdout).toMatch(/controlPlanes/);
}, 90_000);
