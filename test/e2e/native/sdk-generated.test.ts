/**
 * The committed SDKs are what the committed schema generates: `scripts/gen-sdk --check` runs
 * Pulumi's generators (built from Go modules, sharing the CLI build's Go cache) on
 * sdk/schema.json and compares with sdk/go and sdk/nodejs, file by file. (sdk/schema.json
 * against the plugin's code: test/hosts/native/schema.test.ts.)
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { workDir } from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP = 900_000;

async function check(language: "go" | "nodejs", dir = path.join("sdk", language)): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await execFile(path.join(REPO_ROOT, "scripts/gen-sdk"), ["--check", language, "sdk/schema.json", dir], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
      timeout: STEP,
    });
    return { code: 0, stderr };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? 1, stderr: err.stderr ?? String(e) };
  }
}

describe("the committed SDKs", () => {
  it.each(["go", "nodejs"] as const)(
    "%s is what sdk/schema.json generates (else: npm run gen:sdk)",
    async (language) => {
      const { code, stderr } = await check(language);
      expect(stderr, stderr).toContain(`sdk/${language} is what sdk/schema.json generates`);
      expect(code).toBe(0);
    },
    STEP,
  );

  it(
    "a generated file edited by hand fails the check, which names it",
    async () => {
      const copy = path.join(workDir("stale-sdk"), "nodejs");
      fs.cpSync(path.join(REPO_ROOT, "sdk", "nodejs"), copy, { recursive: true });
      const file = path.join(copy, "cluster.ts");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("public readonly workers:", "public readonly workerCount:"));
      const { code, stderr } = await check("nodejs", copy);
      expect(code).toBe(1);
      expect(stderr).toContain("cluster.ts");
      expect(stderr).toContain("run npm run gen:sdk");
    },
    STEP,
  );
});
