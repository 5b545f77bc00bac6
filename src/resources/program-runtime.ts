/**
 * What a program run keeps for its whole process (a program runs one stack): its auto-name seed
 * resource (`autoname-seed.ts`) and its read of the stack's recorded outputs (`state-record.ts`).
 * One, even when two copies of the package are loaded in the program: kept by `hosts/process.ts`,
 * each part under its versioned name.
 */
import type * as pulumi from "@pulumi/pulumi";
import { processPart } from "../hosts/process";

/** The program's parts of the process runtime. */
export interface ProgramRuntime {
  /** The stack's seed resource, once registered. */
  readonly seed: { resource?: { value: pulumi.Output<string> } };
  /** The read of the stack's recorded outputs, by stack. */
  readonly stackOutputs: { read?: { stack: string; outputs: Promise<Record<string, unknown>> } };
}

/** The program's runtime in this process. */
export function programRuntime(): ProgramRuntime {
  return {
    seed: processPart("resources.autoname-seed.v1", () => ({})),
    stackOutputs: processPart("resources.stack-outputs.v1", () => ({})),
  };
}
