import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../../../src/client/version";
import { packageSchema } from "../../../src/hosts/native/schema";
import { CLUSTER_INPUT_PROPERTIES } from "../../../src/provider/types";

const REPO = path.resolve(__dirname, "../../..");

describe("the native plugin's schema", () => {
  const schema = packageSchema(PACKAGE_VERSION) as {
    resources: Record<string, { inputProperties: Record<string, unknown>; properties: Record<string, { secret?: boolean }> }>;
    functions: Record<string, unknown>;
  };

  it("is the one the committed Go SDK was generated from (npm run gen:sdk)", () => {
    const committed = JSON.parse(fs.readFileSync(path.join(REPO, "sdk", "schema.json"), "utf8"));
    expect(committed).toEqual(schema);
  });

  it("offers every input the core checks, and marks the kubeconfig secret", () => {
    const cluster = schema.resources["cms:index:Cluster"];
    expect(Object.keys(cluster.inputProperties).sort()).toEqual([...CLUSTER_INPUT_PROPERTIES, "connection"].sort());
    expect(cluster.properties.kubeconfig.secret).toBe(true);
  });

  it("gives as its Node.js package the specifier of the native SDK, which generated programs (pulumi import) import", () => {
    const { packageName } = (schema as unknown as { language: { nodejs: { packageName: string } } }).language.nodejs;
    // The package refers to itself by name through its `exports`, as a user's project does.
    expect(require.resolve(packageName, { paths: [REPO] })).toBe(path.join(REPO, "dist", "native", "index.js"));
  });

  it("names a function for every lookup", () => {
    expect(Object.keys(schema.functions).sort()).toEqual(
      ["getCluster", "getClusters", "getKubeconfig", "getNode", "getNodes"].map((f) => `cms:index:${f}`),
    );
  });
});
