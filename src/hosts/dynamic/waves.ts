/**
 * The dynamic host's engine waves (`../engine-waves.ts`): one for the process, kept in its runtime
 * and so shared by every copy of the package loaded in it, as the shared pollers are.
 */
import { ENGINE_SPELLS, EngineWaves } from "../engine-waves";
import type { HostRuntime } from "../process";

/** The waves of the dynamic host of `runtime`'s process. */
export function dynamicWaves(runtime: HostRuntime): EngineWaves {
  runtime.waves ??= new EngineWaves(() => runtime.expected, ENGINE_SPELLS, runtime.pollers);
  return runtime.waves;
}
