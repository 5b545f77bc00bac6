/**
 * A test's fresh process: every process slot of the package empty (`src/shared/runtime/process-slot.ts`:
 * no limiter, poller, reader, listing, configuration or program seed left from earlier tests), no
 * auto-name seed drawn, and the provider's settings `settings`.
 */
import { replaceProcessSettings, type ProviderSettings } from "../../src/provider/settings";
import { drawnSeeds } from "../../src/shared/runtime/drawn-seeds";
import { processSlots } from "../../src/shared/runtime/process-slot";

export function resetProcess(settings: ProviderSettings = {}): void {
  processSlots().clear();
  // Under its own key, which the seed's serialized provider (stored in every stack's state) writes.
  drawnSeeds().clear();
  replaceProcessSettings(settings);
}
