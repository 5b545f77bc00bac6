// Types of harness.mjs (the implementation is plain JavaScript so `node` scripts can import it).
import type { EmulatorOptions, RunningEmulator } from "../../packages/emulator/src";
import type { ApiCluster } from "../../src/shared/wire-types";

export declare const REPO_ROOT: string;
/** The `@pulumi/pulumi` of package.json's devDependencies: the Pulumi version everything is pinned to. */
export declare const PINNED_PULUMI_VERSION: string;
export declare const CLUSTER_TYPE: string;
export declare const DEFAULT_COMMAND_TIMEOUT_MS: number;
export declare const LIFECYCLE_TIMINGS: Readonly<
  Required<Pick<EmulatorOptions, "provisionSeconds" | "scaleSeconds" | "deleteSeconds" | "upgradeSeconds">>
>;
export declare const DEFAULT_PROGRAM: string;
export declare const TEST_PASSPHRASE: string;

export declare function lifecycleSkipped(): boolean;
export declare class PulumiNotFoundError extends Error {}
export declare function findPulumi(): Promise<{ binDir: string; pulumi: string; version: string }>;

export interface RunResult {
  command: string;
  code: number;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  durationMs: number;
}
export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  onOutput?: (chunk: string) => void;
  /** Called with the CLI's child process as soon as it is spawned (its pid, for kill tests). */
  onSpawn?: (child: import("node:child_process").ChildProcess) => void;
}
export declare function execFile(file: string, args: string[], options?: ExecOptions): Promise<RunResult>;

export declare function loadEmulatorModule(): typeof import("../../packages/emulator/src");

export interface ApiResponse {
  status: number;
  body: any;
  text: string;
}
export interface LifecycleEmulator extends RunningEmulator {
  stackConfig(): Record<string, string>;
  secretConfig(): Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  clusters(): Promise<ApiCluster[]>;
  waitForCluster(id: string, predicate: (c: ApiCluster | undefined) => boolean, timeoutMs?: number): Promise<ApiCluster | undefined>;
}
export declare function startLifecycleEmulator(options?: EmulatorOptions): Promise<LifecycleEmulator>;

export interface EngineEvent {
  sequence: number;
  timestamp: number;
  [kind: string]: any;
}
export interface ResourceStep {
  sequence: number;
  kind: "pre" | "outputs" | "failed";
  op: string;
  urn: string;
  type: string;
  metadata: any;
}
export declare function parseEngineEvents(text: string): EngineEvent[];
export declare function resourceSteps(events: EngineEvent[]): ResourceStep[];

export interface RunOptions {
  allowFailure?: boolean;
  env?: Record<string, string>;
  timeoutMs?: number;
  onSpawn?: (child: import("node:child_process").ChildProcess) => void;
  /** Sees the CLI's output as it arrives. */
  onOutput?: (chunk: string) => void;
}
export interface ExportedStack {
  text: string;
  state: any;
  resources: Array<{ urn: string; type: string; id?: string; inputs: any; outputs: any; initErrors?: string[]; [k: string]: any }>;
}
export declare class PulumiCommandError extends Error {
  result: RunResult;
}
export declare class PulumiProject {
  readonly root: string;
  readonly dir: string;
  readonly backend: string;
  readonly home: string;
  readonly name: string;
  readonly stack: string;
  readonly binDir: string;
  readonly version: string;
  env: Record<string, string>;
  echo: boolean;
  cliEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  setConfig(key: string, value: string | number, options?: { secret?: boolean }): Promise<void>;
  removeConfig(key: string): Promise<void>;
  writeProgram(source: string): Promise<void>;
  preview(args?: string[], options?: RunOptions): Promise<RunResult>;
  up(args?: string[], options?: RunOptions): Promise<RunResult>;
  upJson(args?: string[], options?: RunOptions): Promise<RunResult & { events: EngineEvent[]; steps: ResourceStep[] }>;
  refresh(args?: string[], options?: RunOptions): Promise<RunResult>;
  destroy(args?: string[], options?: RunOptions): Promise<RunResult>;
  exportStack(): Promise<ExportedStack>;
  clusterResources(): Promise<ExportedStack["resources"]>;
  outputs(options?: { showSecrets?: boolean }): Promise<Record<string, any>>;
  dispose(): Promise<void>;
}
export interface CreateProjectOptions {
  name?: string;
  stack?: string;
  program?: string;
  files?: Record<string, string>;
  config?: Record<string, string | number>;
  secretConfig?: Record<string, string>;
  env?: Record<string, string>;
  echo?: boolean;
  /** A node_modules directory to use instead of links to this repository. */
  nodeModules?: string;
}
export declare function createProject(options?: CreateProjectOptions): Promise<PulumiProject>;
export declare function filesContaining(dir: string, needles: string[]): Promise<Array<{ file: string; needle: string }>>;
export { eventually } from "../support/eventually.mjs";
export declare function teardown(projects: Array<PulumiProject | undefined>, emulator?: { close(): Promise<void> }): Promise<void>;
export declare function descendants(pid: number): number[];
export declare function alive(pid: number): boolean;
export declare function killTree(pid: number): number[];
