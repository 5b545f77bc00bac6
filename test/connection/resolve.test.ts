import { describe, expect, it } from "vitest";
import { normalizeEndpoint } from "../../src/client/endpoint";
import { ConnectionError, resolveConnection } from "../../src/connection";

const env = { CMS_ENDPOINT: "http://env:1", CMS_TOKEN: "env-token" };

describe("connection resolution", () => {
  it("prefers explicit, then stack config, then environment, per setting", () => {
    expect(
      resolveConnection({ explicit: { endpoint: "http://x:1", token: "x" }, config: { endpoint: "http://c:1", token: "c" }, env }),
    ).toEqual({ endpoint: "http://x:1", token: "x" });
    expect(resolveConnection({ explicit: { endpoint: "http://x:1" }, config: { token: "c" }, env })).toEqual({
      endpoint: "http://x:1",
      token: "c",
    });
    expect(resolveConnection({ config: { endpoint: "http://c:1" }, env })).toEqual({ endpoint: "http://c:1", token: "env-token" });
    expect(resolveConnection({ env })).toEqual({ endpoint: "http://env:1", token: "env-token" });
  });

  it("skips empty values", () => {
    expect(resolveConnection({ explicit: { endpoint: "", token: " " }, env })).toEqual({ endpoint: "http://env:1", token: "env-token" });
  });

  it("normalises the endpoint", () => {
    expect(normalizeEndpoint(" https://cms.example.com/v1/ ")).toBe("https://cms.example.com");
    expect(resolveConnection({ explicit: { endpoint: "http://h:2/" }, env }).endpoint).toBe("http://h:2");
  });

  it("says where to set a missing endpoint or token, without a token in the text", () => {
    expect(() => resolveConnection({ env: {} })).toThrow(ConnectionError);
    expect(() => resolveConnection({ env: {} })).toThrow(/connection\.endpoint.*pulumi config set cms:endpoint.*CMS_ENDPOINT/);
    let message = "";
    try {
      resolveConnection({ env: { CMS_ENDPOINT: "http://e:1" }, explicit: { token: "" } });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/pulumi config set --secret cms:token/);
    expect(message).toMatch(/CMS_TOKEN/);
  });

  it("names the function's connection argument, not a resource's, when a function call has none", () => {
    expect(() => resolveConnection({ env: {}, caller: "function" })).toThrow(/pass `connection: \{ endpoint \}` to the function/);
    expect(() => resolveConnection({ env: { CMS_ENDPOINT: "http://e:1" }, caller: "function" })).toThrow(
      /pass `connection: \{ token \}` to the function/,
    );
    expect(() => resolveConnection({ env: {}, caller: "function" })).not.toThrow(/resource/);
    expect(() => resolveConnection({ env: {} })).toThrow(/set the resource's connection\.endpoint/);
  });
});
