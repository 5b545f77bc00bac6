import { describe, expect, it } from "vitest";
import * as rpc from "@pulumi/pulumi/runtime/rpc";
import { containsUnknown, isUnknown, UNKNOWN } from "../../../src/provider/properties/unknown";

describe("unknown sentinel", () => {
  it("is the SDK's unknown value", () => {
    expect(UNKNOWN).toBe(rpc.unknownValue);
  });
  it("is found at any depth", () => {
    expect(isUnknown(UNKNOWN)).toBe(true);
    expect(isUnknown("x")).toBe(false);
    expect(containsUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(containsUnknown({ a: [1, { b: 2 }] })).toBe(false);
  });
});
