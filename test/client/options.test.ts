import { describe, expect, it } from "vitest";
import { CmsClient, DEFAULT_USER_AGENT, createClient, normalizeEndpoint, resolveClientOptions } from "../../src/client";

describe("normalizeEndpoint", () => {
  it.each([
    ["http://127.0.0.1:8787", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/v1", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/v1/", "http://127.0.0.1:8787"],
    [" https://cms.internal/api/v1// ", "https://cms.internal/api"],
    ["https://cms.internal/api", "https://cms.internal/api"],
  ])("%s -> %s", (input, out) => {
    expect(normalizeEndpoint(input)).toBe(out);
  });

  it("rejects what is not an absolute http(s) URL, or carries credentials", () => {
    expect(() => normalizeEndpoint("127.0.0.1:8787")).toThrow(/Invalid CMS endpoint/);
    expect(() => normalizeEndpoint("ftp://x")).toThrow(/http and https/);
    expect(() => normalizeEndpoint("http://user:pw@x")).toThrow(/credentials/);
  });
});

describe("resolveClientOptions", () => {
  it("merges the caller's options over the defaults", () => {
    const o = resolveClientOptions({ endpoint: "http://h/v1", token: "t0k3n-value", retries: 2 });
    expect(o).toMatchObject({
      endpoint: "http://h",
      retries: 2,
      timeoutMs: 30_000,
      minRetryDelayMs: 500,
      maxRetryDelayMs: 30_000,
      userAgent: DEFAULT_USER_AGENT,
      limiter: true,
    });
    expect(DEFAULT_USER_AGENT).toMatch(/^pulumi-cms\/\d+\.\d+\.\d+/);
  });

  it("names the option a missing token belongs in, without Pulumi advice (the provider adds that)", () => {
    expect(() => resolveClientOptions({ endpoint: "http://h", token: "  " })).toThrow(/client option `token` is required/);
    expect(() => resolveClientOptions({ endpoint: "http://h", token: "  " })).not.toThrow(/pulumi/);
  });

  it("rejects nonsense numbers", () => {
    expect(() => resolveClientOptions({ endpoint: "http://h", token: "t0k3n-value", retries: -1 })).toThrow(/retries/);
  });
});

describe("the client object does not expose the token", () => {
  it("keeps it out of JSON, inspection and enumerable properties", () => {
    const token = "cms_secret_token_do_not_print";
    const client = createClient({ endpoint: "http://127.0.0.1:9", token, limiter: false });
    expect(client).toBeInstanceOf(CmsClient);
    expect(client.endpoint).toBe("http://127.0.0.1:9");
    expect(JSON.stringify(client)).not.toContain(token);
    expect(require("node:util").inspect(client, { depth: 10, showHidden: true })).not.toContain(token);
    expect(Object.values(client).join(" ")).not.toContain(token);
  });
});
