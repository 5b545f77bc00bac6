import { describe, expect, it } from "vitest";
import { plainTokenRefusal } from "../../src/connection/plain-token";

describe("a cms:token in plain stack configuration", () => {
  it("is refused when the language host's secret keys do not list it, naming the fix and not the token", () => {
    for (const keys of ["[]", '["cms:endpoint"]', '["other:token"]']) {
      const message = plainTokenRefusal("tok-plain-0123", keys);
      expect(message).toContain("cms:token is set in the stack configuration in plain text");
      expect(message).toContain("`pulumi config set --secret cms:token <token>`");
      expect(message).not.toContain("tok-plain-0123");
    }
  });

  it("names the stack's own configuration file when the stack is known", () => {
    expect(plainTokenRefusal("tok", "[]", "dev")).toContain("Pulumi.dev.yaml holds the token unencrypted");
    expect(plainTokenRefusal("tok", "[]")).toContain("Pulumi.<stack>.yaml holds the token unencrypted");
  });

  it("passes a secret token, no token, and a host that lists no secret keys at all", () => {
    expect(plainTokenRefusal("tok", '["cms:token"]')).toBeUndefined();
    expect(plainTokenRefusal(undefined, "[]")).toBeUndefined();
    expect(plainTokenRefusal(" ", "[]")).toBeUndefined();
    expect(plainTokenRefusal("tok", undefined)).toBeUndefined();
    expect(plainTokenRefusal("tok", "not json")).toBeUndefined();
  });
});
