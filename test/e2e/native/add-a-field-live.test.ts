/**
 * A field is added in one place (CONTRIBUTING.md, "Adding a field"): in a copy of the sources, an
 * output field and an input field updated in place are added to the declaration in
 * `@pulumi-cms/contract` (packages/contract/src/fields.ts) and nothing else; `npm run gen`
 * regenerates and builds. The output field is then in the native schema, both SDKs, the client's
 * answer checks, the camelCase types (`ClusterInfo`), the emulator's answers, the dynamic
 * provider's outputs and the native plugin's (unknown in a preview), and the lookups' results. The
 * input field is in the dynamic `Cluster`'s arguments and outputs (a program using them
 * type-checks), the native schema's inputs and both SDKs' arguments, the create's body the
 * emulator takes and stores, and a change of it is a PATCH, in place, in both faces.
 */
import { execFile as execFileCb } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
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

/** The input field added: optional, updated in place, which the service may not report (as `infra_id`); the emulator stores it. */
const WINDOW =
  '  maintenanceWindow: { wire: "maintenance_window", reported: "maybe", type: "string", input: "optional", onChange: "update", output: "optional", description: "Weekly maintenance window.", argument: "Weekly maintenance window, `<day> <hh:mm>` UTC. Updated in place." },\n';

/** A program of the dynamic face that gives the input field and reads it back, type-checked against the copy's build. */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Cluster, type ClusterArgs } from "./dist";
const args: ClusterArgs = { controlPlanes: 1, workers: 1, nodeSize: "small", maintenanceWindow: "sun 03:00" };
const cluster = new Cluster("typed", args);
export const window: pulumi.Output<string | undefined> = cluster.maintenanceWindow;
`;

/** Run in the copy: the emulator, a create through the dynamic provider and through the native plugin's handlers, a lookup. */
const PROBE = `
const { startEmulator } = require("./packages/emulator/dist");
const dynamic = require("./dist/provider/entry.js");
const { providerHandlers } = require("./dist/hosts/native/handlers.js");
const { newHostRuntime } = require("./dist/hosts/process.js");
const { pulumiGrpc } = require("./dist/hosts/pulumi-grpc.js");
(async () => {
  const emu = await startEmulator({ port: 0, provisionSeconds: 0.2, scaleSeconds: 0.1, deleteSeconds: 0.1 });
  process.env.CMS_ENDPOINT = emu.url;
  process.env.CMS_TOKEN = emu.token;
  try {
    const out = {};
    await dynamic.configure({ config: { get: () => undefined, require: (k) => { throw new Error(k); } } });
    const checked = await dynamic.check({}, { controlPlanes: 1, workers: 1, nodeSize: "small", maintenanceWindow: "sun 03:00",
      __urn: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cms:Cluster::added" });
    const created = await dynamic.create(checked.inputs);
    out.dynamic = created.outs.region;
    const get = async (id) => (await fetch(emu.url + "/v1/clusters/" + id, { headers: { authorization: "Bearer " + emu.token } })).json();
    const answer = await get(created.id);
    out.emulator = answer.region;
    out.created = { window: answer.maintenance_window, output: created.outs.maintenanceWindow };
    const news = { ...checked.inputs, maintenanceWindow: "sat 22:30" };
    const diff = await dynamic.diff(created.id, created.outs, news);
    const updated = await dynamic.update(created.id, created.outs, news);
    const after = await get(created.id);
    out.updated = { changes: diff.changes, replaces: diff.replaces, output: updated.outs.maintenanceWindow, window: after.maintenance_window, status: after.status };

    const { provider: proto, struct } = pulumiGrpc();
    const { handlers } = providerHandlers(newHostRuntime());
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
    const given = await handlers.check(new proto.CheckRequest().setUrn(urn).setType("cms:index:Cluster")
      .setNews(struct.Struct.fromJavaScript({ controlPlanes: 1, workers: 1, nodeSize: "small", maintenanceWindow: "mon 01:00" })));
    const made = await handlers.create(new proto.CreateRequest().setUrn(urn).setType("cms:index:Cluster").setProperties(given.getInputs()));
    const olds = made.getProperties().toJavaScript();
    const moved = { ...given.getInputs().toJavaScript(), maintenanceWindow: "tue 02:00" };
    const nativeDiff = await handlers.diff(new proto.DiffRequest().setId(made.getId()).setUrn(urn).setType("cms:index:Cluster")
      .setOlds(struct.Struct.fromJavaScript(olds)).setNews(struct.Struct.fromJavaScript(moved)));
    const nativeUpdate = await handlers.update(new proto.UpdateRequest().setId(made.getId()).setUrn(urn).setType("cms:index:Cluster")
      .setOlds(struct.Struct.fromJavaScript(olds)).setNews(struct.Struct.fromJavaScript(moved)));
    out.nativeInput = {
      created: olds.maintenanceWindow,
      diffs: nativeDiff.getDiffsList(),
      replaces: nativeDiff.getReplacesList(),
      updated: nativeUpdate.getProperties().toJavaScript().maintenanceWindow,
      window: (await get(made.getId())).maintenance_window,
    };
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

describe("an output and an argument added to the declaration alone", () => {
  it(
    "reach, after npm run gen, the schema, the SDKs, the types of both faces, the emulator and every output; the argument a PATCH in place",
    async () => {
      const fields = path.join(copy, "packages/contract/src/fields.ts");
      const source = fs.readFileSync(fields, "utf8");
      const at = source.indexOf("  infraId: {");
      expect(at, "the declaration's infraId").toBeGreaterThan(0);
      fs.writeFileSync(fields, source.slice(0, at) + REGION + WINDOW + source.slice(at));

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

      // The input field: an optional argument of both faces, in place, in the create's body.
      const argument = "Weekly maintenance window, `<day> <hh:mm>` UTC. Updated in place.";
      expect(schema.resources["cms:index:Cluster"].inputProperties.maintenanceWindow).toEqual({ type: "string", description: argument });
      expect(schema.resources["cms:index:Cluster"].requiredInputs).not.toContain("maintenanceWindow");
      expect(schema.resources["cms:index:Cluster"].description).toContain("`workers`, `nodeSize` and `maintenanceWindow` change in place");
      expect(read("sdk/nodejs/cluster.ts")).toMatch(/maintenanceWindow\?: pulumi\.Input<string( \| undefined)?>;/);
      expect(read("sdk/go/cms/cluster.go")).toMatch(/MaintenanceWindow +pulumi\.StringPtrInput/);
      expect(read("src/generated/cluster-resource-types.ts")).toContain(
        `  /** ${argument} */\n  maintenanceWindow?: pulumi.Input<string>;`,
      );
      const contract = await import(pathToFileURL(path.join(copy, "packages/contract/dist/index.js")).href);
      expect(contract.createBody.properties.maintenance_window).toEqual({ type: "string" });
      expect(contract.createBody.required).not.toContain("maintenance_window");
      expect(Object.keys(contract.updateBody.properties)).toEqual(["workers", "node_size", "maintenance_window"]);
      fs.writeFileSync(path.join(copy, "typed.ts"), PROGRAM);
      await execFile(
        process.execPath,
        [path.join(copy, "node_modules/typescript/bin/tsc"), "--noEmit", "--strict", "--skipLibCheck", "typed.ts"],
        {
          cwd: copy,
          timeout: STEP,
        },
      );
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
        created: { window: "sun 03:00", output: "sun 03:00" },
        updated: { changes: true, replaces: [], output: "sat 22:30", window: "sat 22:30", status: "running" },
        nativeInput: { created: "mon 01:00", diffs: ["maintenanceWindow"], replaces: [], updated: "tue 02:00", window: "tue 02:00" },
      });
    },
    STEP,
  );
});
