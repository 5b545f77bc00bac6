/**
 * The API reference (`npm run docs`, TypeDoc over the package's two entry points) builds without
 * a single warning: every public name is documented, every link resolves, and nothing public
 * refers to a type that is not exported.
 */
import { execFile as execFileCb } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";

const execFile = promisify(execFileCb);

describe("API reference", () => {
  it("TypeDoc finds no warning (typedoc.json treats warnings as errors)", async () => {
    const typedoc = `${REPO_ROOT}/node_modules/.bin/typedoc`;
    const result = await execFile(typedoc, ["--emit", "none"], { cwd: REPO_ROOT }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
    );
    expect(result.output).not.toMatch(/\[warning\]/);
    expect(result.code, result.output).toBe(0);
  }, 120_000);
});
