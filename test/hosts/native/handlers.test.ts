import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { providerHandlers } from "../../../src/hosts/native/handlers";
import { pulumiGrpc } from "../../../src/hosts/pulumi-grpc";
import { reveal, secret } from "../../../src/hosts/native/properties";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { newHostRuntime } from "../../../src/hosts/process";

const URN = "urn:pulumi:dev::clusters::cms:index:Cluster::cluster";
const CONFIG = { endpoint: "http://127.0.0.1:1", token: "t" };

/** The inputs the plugin's check answers for a new auto-named Cluster, its provider configured under `id`. */
async function checkedInputs(id: string | undefined): Promise<Record<string, unknown>> {
  const { provider: proto, struct } = pulumiGrpc();
  const { handlers } = providerHandlers(newHostRuntime());
  const config = await handlers.checkConfig(
    new proto.CheckRequest()
      .setUrn("urn:pulumi:dev::clusters::pulumi:providers:cms::default")
      .setNews(struct.Struct.fromJavaScript(CONFIG)),
  );
  const configure = new proto.ConfigureRequest().setArgs(config.getInputs()).setAcceptsecrets(false);
  if (id !== undefined) configure.setId(id);
  await handlers.configure(configure);
  const checked = await handlers.check(
    new proto.CheckRequest()
      .setUrn(URN)
      .setType("cms:index:Cluster")
      .setNews(struct.Struct.fromJavaScript({ controlPlanes: 1, workers: 1, nodeSize: "small" })),
  );
  expect(checked.getFailuresList()).toEqual([]);
  return checked.getInputs().toJavaScript();
}

describe("the native plugin's auto-name in a preview", () => {
  it("is unknown while the engine previews the provider's creation (its seed is not the one up records)", async () => {
    expect((await checkedInputs(UNKNOWN)).name).toBe(UNKNOWN);
  });

  it("is the derived name once the provider exists (its seed is in the state), and without an id", async () => {
    expect((await checkedInputs("5b2d6a4e-1c3f-4a8e-9b7d-2f6e8c1a0b3d")).name).toMatch(/^cluster-[0-9a-z]{7}$/);
    expect((await checkedInputs(undefined)).name).toMatch(/^cluster-[0-9a-z]{7}$/);
  });
});

describe("the native plugin's provider configuration", () => {
  const DEFAULT = "urn:pulumi:dev::clusters::pulumi:providers:cms::default_0_3_0";

  /** Configure as the engine does: the checked inputs, with the token a secret where the stack holds it as one. */
  async function configureWith(token: unknown, urn = DEFAULT) {
    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
    const checked = await handlers.checkConfig(
      new proto.CheckRequest().setUrn(urn).setNews(struct.Struct.fromJavaScript({ endpoint: CONFIG.endpoint, token: reveal(token) })),
    );
    // The engine marks secret again what it sent as one (CheckConfig's news go out revealed).
    const inputs = { ...checked.getInputs().toJavaScript(), token };
    return handlers.configure(
      new proto.ConfigureRequest().setUrn(urn).setArgs(struct.Struct.fromJavaScript(inputs)).setAcceptsecrets(true),
    );
  }

  it("hands the token back from checkConfig as it came, so that the engine's own marking decides", async () => {
    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
    const checked = await handlers.checkConfig(
      new proto.CheckRequest().setUrn(DEFAULT).setNews(struct.Struct.fromJavaScript({ token: "plain-token" })),
    );
    expect(checked.getInputs().toJavaScript().token).toBe("plain-token");
  });

  it("marks an unchanged token secret itself: the engine records a provider whose configuration did not change before configure", async () => {
    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
    const checked = await handlers.checkConfig(
      new proto.CheckRequest()
        .setUrn(DEFAULT)
        .setOlds(struct.Struct.fromJavaScript({ token: "the-token" }))
        .setNews(struct.Struct.fromJavaScript({ token: "the-token" })),
    );
    expect(checked.getInputs().toJavaScript().token).toEqual(secret("the-token"));
  });

  it("refuses in checkConfig, naming no property (the engine would print its value), when Pulumi.<stack>.yaml holds cms:token in plain text", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cms-stack-file-"));
    const cwd = process.cwd();
    try {
      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  cms:token: plain-token\n");
      process.chdir(dir);
      const { provider: proto, struct } = pulumiGrpc();
      const check = async () =>
        (
          await providerHandlers(newHostRuntime()).handlers.checkConfig(
            new proto.CheckRequest().setUrn(DEFAULT).setNews(struct.Struct.fromJavaScript({ token: "plain-token" })),
          )
        )
          .getFailuresList()
          .map((f: { getProperty(): string; getReason(): string }) => [f.getProperty(), f.getReason()]);
      const [[property, reason]] = await check();
      expect(property).toBe("");
      expect(reason).toMatch(/^cms:token is set in the stack configuration in plain text: Pulumi\.dev\.yaml holds/);
      expect(reason).not.toContain("plain-token");
      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  cms:token:\n    secure: v1:abc\n");
      expect(await check()).toEqual([]);
    } finally {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a plain cms:token with the dynamic face's message and its fix, without quoting it", async () => {
    const refusal = configureWith("plain-token");
    await expect(refusal).rejects.toThrow(/^cms:token is set in the stack configuration in plain text/);
    await expect(refusal).rejects.toThrow("`pulumi config set --secret cms:token <token>`");
    await expect(refusal).rejects.not.toThrow("plain-token");
  });

  it("refuses a plain token given to an explicit provider, naming that provider", async () => {
    await expect(configureWith("plain-token", "urn:pulumi:dev::clusters::pulumi:providers:cms::mine")).rejects.toThrow(
      /^the token of provider mine is given in plain text/,
    );
  });

  it("accepts a secret token", async () => {
    const configured = await configureWith(secret("secret-token"));
    expect(configured.getAcceptsecrets()).toBe(true);
  });
});

describe("the native plugin's getKubeconfig", () => {
  it("refuses a credential other than exec or static before any call, naming both", async () => {
    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
    const invoke = handlers.invoke(
      new proto.InvokeRequest()
        .setTok("cms:index:getKubeconfig")
        .setArgs(struct.Struct.fromJavaScript({ clusterId: "cls_1", credential: "token", connection: CONFIG })),
    );
    await expect(invoke).rejects.toThrow('getKubeconfig: credential must be "exec" or "static", got "token"');
  });
});
