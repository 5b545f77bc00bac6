/**
 * A field is added in one place (CONTRIBUTING.md, "Adding a field"): in a copy of the sources, an
 * output field is added to the declaration in `@pulumi-cms/contract` (packages/contract/src/fields.ts)
 * and nothing else; `npm run gen` regenerates and builds; the field is then in the native schema,
 * both SDKs, the client's answer checks, the camelCase types (`ClusterInfo`), the emulator's answers, the dynamic provider's outputs and
 * the native plugin's (unknown in a preview), and the lookups' results.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../lifecycle/harness.mjs";
import { UNKNOWN } from "../../../src/provider/properties/unknown";
import { workDir } from "../../support/packages";

const execFile = promisify(execFileCb);
const STEP = 600_000;

/** What `npm run gen` reads and writes, and what the build compiles. */
const COPIED = [
  "package.json",
  "tsconfig.json",
  "tsconfig.native.json",
  "src",
  "scripts",
  "sdk",
  "docs/api-reference.md",
  "packages/contract/package.json",
  "packages/contract/tsconfig.json",
  "packages/contract/src",
  "packages/emulator/package.json",
  "packages/emulator/tsconfig.json",
  "packages/emulator/src",
  "packages/emulator/scripts/lib",
];

/** The field added: reported in the full cluster object, an optional output, answered by the emulator with its example. */
const REGION =
  '  region: { wire: "region", reported: "full", type: "string", output: "optional", example: "eu-central-7", description: "Region the cluster runs in." },\n';

/** Run in the copy: the emulator, a create through the dynamic provider and through the native plugin's handlers, a lookup. */
const PROBE = `
const { startEmulator } = require("./packages/emulator/dist");
const dynamic = require("./dist/provider/entry.js");
const { providerHandlers } = require("./dist/hosts/native/handlers.js");
const { pulumiGrpc } = require("./dist/hosts/pulumi-grpc.js");
(async () => {
  const emu = await startEmulator({ port: 0, provisionSeconds: 0.2, scaleSeconds: 0.1, deleteSeconds: 0.1 });
  process.env.CMS_ENDPOINT = emu.url;
  process.env.CMS_TOKEN = emu.token;
  try {
    const out = {};
    await dynamic.configure({ config: { get: () => undefined, require: (k) => { throw new Error(k); } } });
    const checked = await dynamic.check({}, { controlPlanes: 1, workers: 1, nodeSize: "small",
      __urn: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::added" });
    const created = await dynamic.create(checked.inputs);
    out.dynamic = created.outs.region;
    const answer = await fetch(emu.url + "/v1/clusters/" + created.id, { headers: { authorization: "Bearer " + emu.token } });
    out.emulator = (await answer.json()).region;

    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers();
    const config = await handlers.checkConfig(new proto.CheckRequest()
      .setUrn("urn:pulumi:dev::proj::pulumi:providers:cms::default")
      .setNews(struct.Struct.fromJavaScript({ endpoint: emu.url, token: emu.token })));
    await handlers.configure(new proto.ConfigureRequest().setArgs(config.getInputs()).setAcceptsecrets(false));
    const urn = "urn:pulumi:dev::proj::cms:index:Cluster::native";
    const native = await handlers.check(new proto.CheckRequest().setUrn(urn).setType("cms:index:Cluster")
      .setNews(struct.Struct.fromJavaScript({ controlPlanes: 1, workers: 1, nodeSize: "small" })));
    const create = (preview) => handlers.create(new proto.CreateRequest().setUrn(urn).setType("cms:index:Cluster")
      .setProperties(native.getInputs()).setPreview(preview));
    out.preview = (await create(true)).getProperties().toJavaScript().region;
    out.native = (await create(false)).getProperties().toJavaScript().region;
    const found = await handlers.invoke(new proto.InvokeRequest().setTok("cms:index:getCluster")
      .setArgs(struct.Struct.fromJavaScript({ id: created.id })));
    out.lookup = found.getReturn().toJavaScript().region;
    process.stdout.write(JSON.stringify(out));
  } finally {
    await emu.close();
  }
})().catch((e) => { process.stderr.write(String((e && e.stack) || e)); process.exit(1); });
`;

let copy: string;

beforeAll(() => {
  copy = workDir("add-a-field");
  for (const entry of COPIED) fs.cpSync(path.join(REPO_ROOT, entry), path.join(copy, entry), { recursive: true });
  // The repository's dependencies, but this copy's own workspace packages.
  const modules = path.join(copy, "node_modules");
  fs.mkdirSync(path.join(modules, "@pulumi-cms"), { recursive: true });
  for (const name of fs.readdirSync(path.join(REPO_ROOT, "node_modules"))) {
    if (name !== "@pulumi-cms") fs.symlinkSync(path.join(REPO_ROOT, "node_modules", name), path.join(modules, name));
  }
  for (const name of ["contract", "emulator"]) fs.symlinkSync(path.join(copy, "packages", name), path.join(modules, "@pulumi-cms", name));
});
afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

describe("a field added to the declaration alone", () => {
  it(
    "reaches the schema, the SDKs, the answer checks, the emulator's answers and every output after npm run gen",
    async () => {
      const fields = path.join(copy, "packages/contract/src/fields.ts");
      const source = fs.readFileSync(fields, "utf8");
      const at = source.indexOf("  infraId: {");
      expect(at, "the declaration's infraId").toBeGreaterThan(0);
      fs.writeFileSync(fields, source.slice(0, at) + REGION + source.slice(at));

      await execFile("npm", ["run", "gen"], { cwd: copy, maxBuffer: 64 * 1024 * 1024, timeout: STEP });

      const read = (file: string) => fs.readFileSync(path.join(copy, file), "utf8");
      const schema = JSON.parse(read("sdk/schema.json"));
      expect(schema.resources["cms:index:Cluster"].properties.region).toEqual({
        type: "string",
        description: "Region the cluster runs in.",
      });
      expect(schema.resources["cms:index:Cluster"].inputProperties.region).toBeUndefined();
      expect(schema.types["cms:index:ClusterInfo"].properties.region).toBeDefined();
      expect(read("sdk/nodejs/cluster.ts")).toMatch(/declare public (\/\*out\*\/ )?readonly region: pulumi\.Output<string \| undefined>;/);
      expect(read("sdk/nodejs/types/output.ts")).toContain("region?: string");
      expect(read("sdk/go/cms/cluster.go")).toMatch(/Region +pulumi\.StringPtrOutput `pulumi:"region"`/);
      expect(read("sdk/go/cms/pulumiTypes.go")).toContain("Region");
      expect(read("src/generated/answer-validators.ts")).toContain('"region"');
      expect(read("src/generated/cluster-info-types.ts")).toContain("  /** Region the cluster runs in. */\n  region?: string;");
      // The repository itself is untouched.
      expect(fs.readFileSync(path.join(REPO_ROOT, "sdk/schema.json"), "utf8")).not.toContain('"region"');

      fs.writeFileSync(path.join(copy, "probe.cjs"), PROBE);
      const { stdout } = await execFile(process.execPath, ["probe.cjs"], { cwd: copy, timeout: STEP });
      expect(JSON.parse(stdout)).toEqual({
        dynamic: "eu-central-7",
        emulator: "eu-central-7",
        preview: UNKNOWN,
        native: "eu-central-7",
        lookup: "eu-central-7",
      });
    },
    STEP,
  );
});
