/**
 * The emulator suites' helpers (`Api` over real HTTP, `FAST_TIMINGS`, waits on the emulator's
 * state), which the provider's tests share: the emulator's tests own them so that they stand on
 * their own, and the provider's may depend on the emulator's, never the reverse.
 */
export { Api, FAST_TIMINGS, waitForStatus, waitUntilGone } from "../../packages/emulator/test/support/emulator";
