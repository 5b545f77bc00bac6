import { describe, expect, it } from "vitest";
import { processSlot, processSlots } from "../../src/shared/runtime/process-slot";

describe("processSlot", () => {
  it("gives every slot of one name, as two copies of the package each make, the same value, made once", () => {
    let made = 0;
    const init = () => ({ made: ++made });
    const mine = processSlot("test.slot.v1", init);
    const theirs = processSlot("test.slot.v1", init);
    expect(mine()).toBe(theirs());
    expect(made).toBe(1);
    expect(processSlot("test.other-slot.v1", init)()).not.toBe(mine());
  });

  it("makes the value again once the slots are emptied, as in a new process", () => {
    const slot = processSlot("test.emptied.v1", () => new Set<string>());
    slot().add("kept until emptied");
    processSlots().clear();
    expect(slot().size).toBe(0);
  });
});
