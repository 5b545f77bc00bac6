/**
 * The provider's connections (src/provider/connector.ts), alone: which endpoint and token a
 * resource uses, and which tokens a refused refresh or destroy tries next.
 */
import { describe, expect, it } from "vitest";
import { alternativeTokens, Connector } from "../../src/provider/connector";
import { newClientRuntime } from "../../src/client/runtime";

describe("alternativeTokens", () => {
  it("after a refused explicit token: the stack config's, then CMS_TOKEN's, each once and never the one in use", () => {
    expect(alternativeTokens({ token: "tok-explicit" }, "tok-explicit", { token: "tok-config" }, { CMS_TOKEN: "tok-env" })).toEqual([
      "tok-config",
      "tok-env",
    ]);
    expect(alternativeTokens({ token: "tok-explicit" }, "tok-explicit", { token: " tok-same " }, { CMS_TOKEN: "tok-same" })).toEqual([
      "tok-same",
    ]);
    expect(alternativeTokens({ token: "tok-explicit" }, "tok-explicit", { token: "tok-explicit" }, {})).toEqual([]);
  });

  it("after a refused stack-config token: only CMS_TOKEN (the config is the source in use)", () => {
    expect(alternativeTokens(undefined, "tok-config", { token: "tok-config-other" }, { CMS_TOKEN: "tok-env" })).toEqual(["tok-env"]);
    expect(alternativeTokens({ token: "" }, "tok-config", { token: "tok-config" }, { CMS_TOKEN: "  " })).toEqual([]);
  });
});

describe("Connector.resolve", () => {
  const connector = (configured: Record<string, string>, env: Record<string, string>) =>
    new Connector({ configured: () => configured, settings: () => ({ env }), runtime: newClientRuntime() });

  it("takes the explicit connection, then the stack configuration, then the environment", () => {
    const env = { CMS_ENDPOINT: "https://env.example.com", CMS_TOKEN: "tok-env-0123" };
    const config = { endpoint: "https://config.example.com", token: "tok-config-0123" };
    expect(connector(config, env).resolve({ endpoint: "https://explicit.example.com", token: "tok-explicit-0123" })).toEqual({
      endpoint: "https://explicit.example.com",
      token: "tok-explicit-0123",
    });
    expect(connector(config, env).resolve(undefined)).toEqual({ endpoint: "https://config.example.com", token: "tok-config-0123" });
    expect(connector({}, env).resolve({})).toEqual({ endpoint: "https://env.example.com", token: "tok-env-0123" });
  });

  it("refuses a missing endpoint naming where to set it", () => {
    expect(() => connector({}, {}).resolve(undefined)).toThrow(/pulumi config set cms:endpoint/);
  });
});
