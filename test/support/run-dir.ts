/**
 * Vitest's global setup: one directory for the whole test run (`inject("runDir")` in a test
 * file's process), for what every file would otherwise make again, such as the packed tarballs
 * (`packages.ts`). Removed when the run ends.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    runDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-cms-test-run-"));
  project.provide("runDir", dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
