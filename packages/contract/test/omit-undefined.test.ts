import { describe, expect, it } from "vitest";
import { omitUndefined, omitUndefinedDeep } from "../src/omit-undefined";

describe("omitUndefined", () => {
  it("drops undefined properties so that a spread keeps the defaults", () => {
    expect({ a: 1, b: 2, ...omitUndefined({ a: undefined, b: 3 }) }).toEqual({ a: 1, b: 3 });
    expect(omitUndefined({ a: null, b: 0, c: "" })).toEqual({ a: null, b: 0, c: "" });
  });

  it("deep: through plain objects, leaving arrays alone (a property bag for the provider host)", () => {
    expect(omitUndefinedDeep({ a: 1, b: undefined, c: { d: undefined, e: [undefined] } })).toEqual({ a: 1, c: { e: [undefined] } });
  });
});
