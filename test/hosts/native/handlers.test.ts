import { beforeEach, describe, expect, it } from "vitest";
import { providerHandlers } from "../../../src/hosts/native/handlers";
import { pulumiGrpc } from "../../../src/hosts/pulumi-grpc";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { resetProcess } from "../../support/process";

const URN = "urn:pulumi:dev::clusters::cms:index:Cluster::cluster";
const CONFIG = { endpoint: "http://127.0.0.1:1", token: "t" };

/** The inputs the plugin's check answers for a new auto-named Cluster, its provider configured under `id`. */
async function checkedInputs(id: string | undefined): Promise<Record<string, unknown>> {
  const { provider: proto, struct } = pulumiGrpc();
  const { handlers } = providerHandlers();
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
  beforeEach(() => resetProcess());

  it("is unknown while the engine previews the provider's creation (its seed is not the one up records)", async () => {
    expect((await checkedInputs(UNKNOWN)).name).toBe(UNKNOWN);
  });

  it("is the derived name once the provider exists (its seed is in the state), and without an id", async () => {
    expect((await checkedInputs("5b2d6a4e-1c3f-4a8e-9b7d-2f6e8c1a0b3d")).name).toMatch(/^cluster-[0-9a-z]{7}$/);
    expect((await checkedInputs(undefined)).name).toMatch(/^cluster-[0-9a-z]{7}$/);
  });
});
