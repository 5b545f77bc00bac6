/**
 * Shared helpers of the emulator suites: every test talks real HTTP to a real emulator. The
 * provider's suites use them too (through the root's `test/support/emulator.ts`).
 */
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src";
import { eventually } from "./eventually.mjs";

/**
 * The tests' emulator timings: transitions short enough to happen within a test, long enough that
 * a wall-clock waiter sees the intermediate status (about one 1 s poll).
 */
export const FAST_TIMINGS = { provisionSeconds: 0.3, scaleSeconds: 0.2, deleteSeconds: 0.2, upgradeSeconds: 0.2 } as const;

/** A response with its parsed body (JSON when it is JSON, else text). */
export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A minimal HTTP client bound to one emulator and one token. */
export class Api {
  constructor(
    readonly url: string,
    public token: string | undefined,
  ) {}

  async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
    const res = await fetch(this.url + path, {
      method,
      headers: {
        ...(this.token !== undefined ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  get<T = any>(path: string) {
    return this.req<T>("GET", path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.req<T>("POST", path, body);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.req<T>("PATCH", path, body);
  }
  del<T = any>(path: string) {
    return this.req<T>("DELETE", path);
  }
  as(token: string | undefined): Api {
    return new Api(this.url, token);
  }
}

/** Starts an emulator with tiny durations (overridable) and an Api for its first token. */
export async function start(options: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; api: Api }> {
  const emu = await startEmulator({ ...FAST_TIMINGS, ...options });
  return { emu, api: new Api(emu.url, emu.token) };
}

/** A valid create body. */
export function clusterBody(overrides: Record<string, unknown> = {}) {
  return { name: "demo", control_planes: 1, workers: 2, node_size: "small", ...overrides };
}

/** Polls until `pred` holds (bounded), returning the last value. Never asserts on timing. */
export async function until<T>(fn: () => Promise<T>, pred: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let last: T | undefined;
  await eventually(
    async () => {
      last = await fn();
      return pred(last);
    },
    { timeoutMs, intervalMs: 20, describe: () => `last value: ${JSON.stringify(last)}` },
  );
  return last as T;
}

/** Poll the emulator (not the client under test) until the cluster reaches `status`. */
export async function waitForStatus(emu: RunningEmulator, id: string, status: string, timeoutMs = 10_000): Promise<void> {
  let seen: string | undefined;
  await eventually(
    async () => {
      seen = (await emu.control.clusters()).find((x) => x.id === id)?.status;
      return seen === status;
    },
    { timeoutMs, intervalMs: 25, what: `cluster ${id} reaching ${status}`, describe: () => `it is ${seen}` },
  );
}

/** Poll the emulator until the cluster is gone from it (deleted and removed). */
export async function waitUntilGone(emu: RunningEmulator, id: string, timeoutMs = 10_000): Promise<void> {
  await eventually(async () => !(await emu.control.clusters()).some((x) => x.id === id), {
    timeoutMs,
    intervalMs: 25,
    what: `cluster ${id} gone from the emulator`,
  });
}

/** Whether `url` still answers after waiting up to `timeoutMs` for it to stop (a stopped server). */
export async function stillAnswering(url: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answering = await fetch(url).then(
      () => true,
      () => false,
    );
    if (!answering || Date.now() >= deadline) return answering;
    await new Promise((r) => setTimeout(r, 200));
  }
}
