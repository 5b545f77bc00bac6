/** The one redaction of secrets in messages (client, provider and functions). */
import { describe, expect, it } from "vitest";
import { redact, SECRET_MARKER } from "../../src/client/redact";

const TOKEN = "cms_live_0123456789abcdef";

describe("redact", () => {
  it("replaces every occurrence of each secret with the marker the Pulumi CLI shows for secrets", () => {
    expect(SECRET_MARKER).toBe("[secret]");
    expect(redact(`x${TOKEN}y${TOKEN}`, [TOKEN])).toBe("x[secret]y[secret]");
    expect(redact("token abcd1234 leaked abcd1234", ["abcd1234"])).toBe("token [secret] leaked [secret]");
  });

  it("leaves text alone when there is nothing to hide, and values too short to be credentials", () => {
    expect(redact("abc", [])).toBe("abc");
    expect(redact("a tok b", ["tok"])).toBe("a tok b");
    expect(redact("short ab", ["ab", undefined])).toBe("short ab");
  });
});
