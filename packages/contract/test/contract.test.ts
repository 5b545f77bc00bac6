/** The wire contract's schemas are valid JSON Schema, and say what docs/api-contract.md says of ids. */
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import * as contract from "../src/contract";

const SCHEMAS = Object.entries(contract).filter(([, v]) => typeof v === "object" && v !== null && "type" in v);

describe("the wire contract", () => {
  it.each(SCHEMAS)("%s is valid against the meta-schema and compiles in strict mode", (_name, schema) => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    expect(ajv.validateSchema(schema as object)).toBe(true);
    expect(() => ajv.compile(schema as object)).not.toThrow();
  });

  it.each([
    ["cls_0123456789abcdef", true],
    ["cls_A-b_9", true],
    ["cls_", false],
    ["../../admin", false],
    ["cls_a/b", false],
    ["cls_%2e%2e", false],
    [`cls_${"a".repeat(129)}`, false],
  ])("a cluster id %j is of the shape: %s", (id, ok) => {
    expect(contract.isClusterId(id)).toBe(ok);
  });

  it("node ids are node_ and the same characters", () => {
    expect(contract.isNodeId("node_0123456789abcdef")).toBe(true);
    expect(contract.isNodeId("cls_0123456789abcdef")).toBe(false);
    expect(contract.isNodeId("node_../x")).toBe(false);
  });
});
