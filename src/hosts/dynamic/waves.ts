/**
 * The dynamic host's engine waves (`../engine-waves.ts`): one for the process, shared by every
 * copy of the package loaded in it, as the shared pollers are.
 */
import { processSlot } from "../../shared/runtime/process-slot";
import { ENGINE_SPELLS, EngineWaves, noExpectedOperations } from "../engine-waves";

/** The waves of the dynamic host of this process. */
export const dynamicWaves = processSlot("dynamic-host.engine-waves.v1", () => {
  const expected = noExpectedOperations();
  return new EngineWaves(() => expected, ENGINE_SPELLS);
});
