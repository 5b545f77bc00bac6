/** The tests' one "poll until" is the emulator's (the provider's tests may depend on the emulator's, not the reverse). */
export { eventually } from "../../packages/emulator/test/support/eventually.mjs";
