/** The emulator's tests own it; the provider's use the same one. */
export { rejection } from "../../packages/emulator/test/support/rejection";
