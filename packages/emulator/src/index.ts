/**
 * A faithful local emulator of the Cluster Management Service (`/v1`), plus a control API
 * (`/_emulator/`) for tests, demos and benchmarks.
 *
 * ```ts
 * const emu = await startEmulator({ provisionSeconds: 0.2 });
 * await fetch(`${emu.url}/v1/clusters`, { headers: { authorization: `Bearer ${emu.token}` } });
 * await emu.control.failNext("create");
 * await emu.close();
 * ```
 */
import { newAdminToken, newDevToken, toPrincipal } from "./http/auth";
import { systemClock } from "@pulumi-cms/contract";
import { createControl } from "./control/in-process";
import { buildServer } from "./http/server";
import { DEFAULT_TIMINGS, EmulatorState, checkTimings } from "./model/state";
import type { StateStore } from "./store/database";
import type { EmulatorOptions, RunningEmulator, TokenSpec } from "./types";

export type {
  AddedToken,
  ConnectionLimits,
  KubernetesOptions,
  EmulatorControl,
  EmulatorOptions,
  FaultSpec,
  Permission,
  Plan,
  RunningEmulator,
  NewTokenSpec,
  Timings,
  TokenSpec,
} from "./types";
export { controlClient, ControlError } from "./control/client";
export { ManualClock, systemClock, type Clock } from "@pulumi-cms/contract";
export { DEFAULT_TIMINGS } from "./model/state";
export { PLAN_LIMITS } from "./http/limits";
export { CONTROL_ROUTES } from "./control/route-table";
/** Errors of the in-process control (`status`/`statusCode`, `code`, `message`), as the HTTP ones. */
export { ServiceError, type ErrorCode } from "./http/errors";
/**
 * The former name of {@link ServiceError}.
 *
 * @deprecated Use `ServiceError`; `ApiError` is the client's error class.
 */
export { ServiceError as ApiError } from "./http/errors";

/**
 * Starts an emulator and resolves once it listens. Tokens: `tokens`, plus `token` (every
 * permission, scope `*`); with neither, a dev token is generated (`RunningEmulator.token`).
 * Throws on invalid options (bad token spec, bad durations), and on a state file that is damaged
 * or in use by another emulator (see docs/contract.md, Persistence).
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const clock = options.clock ?? systemClock;
  const timings = { ...DEFAULT_TIMINGS };
  for (const key of Object.keys(timings) as Array<keyof typeof timings>) {
    const value = options[key];
    if (value !== undefined) timings[key] = value;
  }
  checkTimings(timings);
  const state = new EmulatorState(clock, timings, options.planLimits, options.capacity);

  const specs: TokenSpec[] = [];
  if (options.token !== undefined) {
    specs.push({ token: options.token, permissions: ["read", "write", "admin"], scope: "*", plan: options.plan ?? "enterprise" });
  }
  specs.push(...(options.tokens ?? []));
  if (specs.length === 0) {
    specs.push({ token: newDevToken(), permissions: ["read", "write", "admin"], scope: "*", plan: options.plan ?? "enterprise" });
  }
  for (const [i, spec] of specs.entries()) state.tokens.add(toPrincipal(spec, `tokens[${i}]`, clock.now()));
  const adminToken = options.adminToken ?? newAdminToken();
  if (state.tokens.has(adminToken)) throw new Error("adminToken must differ from every service token");

  let store: StateStore | undefined;
  if (options.statePath) {
    // Loaded only with the option: node:sqlite and the store's thread are not needed without it.
    const { StateStore } = await import("./store/database.js");
    const opened = await StateStore.open(options.statePath, {
      cluster: (id) => state.held(id),
      creating: (id) => state.isCreating(id),
    });
    store = opened.store;
    state.load(opened.loaded.records, opened.loaded.subnetSeq);
    state.useStore(store);
    for (const notice of opened.loaded.notices) process.stderr.write(`cms-emulator: ${notice}\n`);
    // Deletions that ended while the emulator was stopped: their records go now.
    state.purge(state.now());
  }

  if (options.kubernetes) {
    try {
      // Loaded only with the option: without it, nothing of it is loaded or started.
      const { startKubernetesBacking } = await import("./kubernetes/index.js");
      state.useKubernetes(await startKubernetesBacking(options.kubernetes, state, options.statePath));
    } catch (e) {
      await store?.close();
      throw e;
    }
  }

  const control = createControl(state);
  const app = buildServer(state, { logger: options.logger, adminToken, control, connections: options.connections });
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  const shownHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    token: specs[0].token,
    adminToken,
    control,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await state.kubernetes?.close();
        await store?.close();
      })()),
  };
}
