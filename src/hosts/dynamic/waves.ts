/**
 * The dynamic host's engine waves (`../engine-waves.ts`): one for the process, shared by every
 * copy of the package loaded in it, as the shared pollers are.
 */
import { processSlot } from "../../shared/process-slot";
import { EngineWaves, noExpectedOperations, type QuietSpells } from "../engine-waves";

/**
 * The dynamic host's quiet spells. Checked operations start milliseconds after their check when a
 * slot is free, so 40 ms without any means the slots are full; unannounced, the engine starts the
 * next delete milliseconds to tens of milliseconds after the previous one.
 */
export const DYNAMIC_SPELLS: Readonly<QuietSpells> = Object.freeze({ slotsFullMs: 40, gatherMs: 100 });

/** The waves of the dynamic host of this process. */
export const dynamicWaves = processSlot("dynamic-host.engine-waves.v1", () => {
  const expected = noExpectedOperations();
  return new EngineWaves(() => expected, DYNAMIC_SPELLS);
});
