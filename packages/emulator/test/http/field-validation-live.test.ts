/** 400 validation_failed naming the field and the rule, and no state change. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

const clock = new ManualClock();
let emu: RunningEmulator;
let api: Api;
let running: string;

beforeAll(async () => {
  ({ emu, api } = await start({ clock, provisionSeconds: 1 }));
  running = (await api.post("/v1/clusters", clusterBody({ name: "keep" }))).body.id;
  clock.advanceSeconds(1);
});
afterAll(() => emu.close());

async function snapshot() {
  return JSON.stringify(await emu.control.clusters());
}

describe("create validation", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["name with a space", { name: "my cluster" }, /^name must be .*letters, digits and hyphens only/],
    ["name with underscore", { name: "a_b" }, /^name must be/],
    ["empty name", { name: "" }, /^name must be a string of 1 to 63/],
    ["64-character name", { name: "a".repeat(64) }, /^name must be a string of 1 to 63/],
    ["name not a string", { name: 42 }, /^name must be/],
    ["control_planes 2", { control_planes: 2 }, /^control_planes must be 1 or 3 \(got 2\)/],
    ["control_planes 0", { control_planes: 0 }, /^control_planes must be 1 or 3/],
    ["control_planes as a string", { control_planes: "3" }, /^control_planes must be 1 or 3 \(got "3"\)/],
    ["workers 0", { workers: 0 }, /^workers must be an integer between 1 and 100 \(got 0\)/],
    ["workers negative", { workers: -2 }, /^workers must be an integer/],
    ["workers 2.5", { workers: 2.5 }, /^workers must be an integer .*\(got 2.5\)/],
    ["workers as a string", { workers: "2" }, /^workers must be an integer/],
    ["workers null", { workers: null }, /^workers must be an integer/],
    ["workers above the cap", { workers: 101 }, /^workers must be an integer between 1 and 100/],
    ["unknown node_size", { node_size: "huge" }, /^node_size must be one of small, medium, large, xlarge \(got "huge"\)/],
    ["unknown phase", { phase: "cloud" }, /^phase must be one of managed, onpremise, baremetal/],
    ["infra_id missing for onpremise", { phase: "onpremise" }, /^infra_id is required when phase is onpremise/],
    ["infra_id missing for baremetal", { phase: "baremetal" }, /^infra_id is required when phase is baremetal/],
    ["empty infra_id", { phase: "baremetal", infra_id: "" }, /^infra_id must be a string of 1 to 128/],
    ["unknown field", { colour: "blue" }, /^Unknown field "colour"/],
    ["read-only field", { status: "running" }, /^status is immutable/],
  ];
  for (const [label, override, message] of cases) {
    it(label, async () => {
      const before = await snapshot();
      const res = await api.post("/v1/clusters", clusterBody(override));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_failed");
      expect(res.body.message).toMatch(message);
      expect(await snapshot()).toBe(before);
    });
  }
  for (const field of ["name", "control_planes", "workers", "node_size"]) {
    it(`missing ${field}`, async () => {
      const body: Record<string, unknown> = clusterBody();
      delete body[field];
      const res = await api.post("/v1/clusters", body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "validation_failed", message: `${field} is required` });
    });
  }
  it("accepts every phase with an infra_id, and infra_id on managed", async () => {
    for (const phase of ["managed", "onpremise", "baremetal"]) {
      const res = await api.post("/v1/clusters", clusterBody({ phase, infra_id: `infra-${phase}` }));
      expect(res.status).toBe(201);
      expect(res.body.phase).toBe(phase);
      expect((await api.get(`/v1/clusters/${res.body.id}`)).body.infra_id).toBe(`infra-${phase}`);
    }
    expect((await api.post("/v1/clusters", clusterBody({ control_planes: 3, workers: 100, node_size: "xlarge" }))).status).toBe(201);
  });
});

describe("PATCH validation", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["name is immutable", { name: "renamed" }, /^name is immutable: only workers and node_size can be modified/],
    ["control_planes is immutable", { control_planes: 3 }, /^control_planes is immutable/],
    ["phase is immutable", { phase: "baremetal" }, /^phase is immutable/],
    ["infra_id is immutable", { infra_id: "x" }, /^infra_id is immutable/],
    ["unknown field", { replicas: 3 }, /^Unknown field "replicas"/],
    ["allowed and immutable together", { workers: 3, name: "x" }, /^name is immutable/],
    ["empty object", {}, /workers and\/or node_size/],
    ["workers 0", { workers: 0 }, /^workers must be an integer between 1 and 100/],
    ["workers as a string", { workers: "3" }, /^workers must be an integer/],
    ["workers fractional", { workers: 1.5 }, /^workers must be an integer/],
    ["unknown node_size", { node_size: "tiny" }, /^node_size must be one of/],
    ["array body", [{ workers: 3 }], /^Request body must be a JSON object/],
  ];
  for (const [label, body, message] of cases) {
    it(label, async () => {
      const before = await snapshot();
      const res = await api.patch(`/v1/clusters/${running}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_failed");
      expect(res.body.message).toMatch(message);
      expect(await snapshot()).toBe(before);
    });
  }
  it("validation comes before existence (400 even for an unknown cluster)", async () => {
    expect((await api.patch("/v1/clusters/cls_0000000000000000", { workers: 0 })).status).toBe(400);
  });
});

describe("list query validation", () => {
  const cases: Array<[string, RegExp]> = [
    ["page=0", /^Query parameter page must be an integer of at least 1/],
    ["page=-1", /^Query parameter page must be/],
    ["page=abc", /^Query parameter page must be/],
    ["page=1.5", /^Query parameter page must be/],
    ["page=1&page=2", /^Query parameter page must be/],
    ["per_page=0", /^Query parameter per_page must be an integer between 1 and 100/],
    ["per_page=101", /^Query parameter per_page must be an integer between 1 and 100 \(got "101"\)/],
    ["per_page=1000", /^Query parameter per_page must be/],
    ["per_page=", /^Query parameter per_page must be/],
    ["status=stopped", /^Query parameter status must be one of provisioning, running, scaling, upgrading, error, deleting/],
    ["perPage=5", /^Unknown query parameter "perPage"; allowed: page, per_page, status/],
  ];
  for (const [query, message] of cases) {
    it(query, async () => {
      const res = await api.get(`/v1/clusters?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_failed");
      expect(res.body.message).toMatch(message);
    });
  }
  it("nodes list takes no query parameters", async () => {
    const res = await api.get(`/v1/clusters/${running}/nodes?page=2`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Unknown query parameter "page"; this route takes no query parameters');
  });
});
