export { eventually } from "../../packages/emulator/test/support/eventually.mjs";
