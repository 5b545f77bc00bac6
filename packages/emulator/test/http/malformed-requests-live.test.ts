/** Bad input of every kind gets a clear {error, message}, changes nothing, and the server keeps serving. */
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type RunningEmulator } from "../../src";
import { type Api, clusterBody, start } from "../support/emulator";

const clock = new ManualClock();
let emu: RunningEmulator;
let api: Api;
let id: string;
let before: string;

beforeAll(async () => {
  ({ emu, api } = await start({ clock, provisionSeconds: 1, scaleSeconds: 1 }));
  id = (await api.post("/v1/clusters", clusterBody({ name: "steady" }))).body.id;
  clock.advanceSeconds(1);
});
afterAll(() => emu.close());
afterEach(async () => {
  // Every case must leave the state as it was, and the server answering.
  if (before !== undefined) expect(JSON.stringify(await emu.control.clusters())).toBe(before);
  expect((await api.get(`/v1/clusters/${id}`)).status).toBe(200);
});
async function remember() {
  before = JSON.stringify(await emu.control.clusters());
}

/** Sends raw bytes and returns the raw HTTP answer. */
function raw(request: string): Promise<string> {
  const { port, hostname } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let data = "";
    socket.on("data", (d) => (data += d.toString()));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
}

describe("bodies", () => {
  const garbage = ["{", "{name: 'x'}", "not json at all", '{"name":"x",}', "\u0000\u0001"];
  for (const body of garbage) {
    it(`invalid JSON ${JSON.stringify(body)} is 400 invalid_json`, async () => {
      await remember();
      const res = await api.req("POST", "/v1/clusters", body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_json");
      expect(res.body.message).toMatch(/^Request body is not valid JSON/);
    });
  }
  it("invalid JSON on PATCH is 400 invalid_json", async () => {
    await remember();
    const res = await api.req("PATCH", `/v1/clusters/${id}`, '{"workers":');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_json");
  });
  it("JSON that is not an object is 400 validation_failed", async () => {
    await remember();
    for (const body of ["[]", '"cluster"', "null", "42"]) {
      const res = await api.req("POST", "/v1/clusters", body);
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({ error: "validation_failed", message: "Request body must be a JSON object" });
    }
  });
  it("an empty body is 400 validation_failed", async () => {
    await remember();
    const res = await api.req("POST", "/v1/clusters", "");
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_failed");
  });
  it("a body over 1 MiB is 413 payload_too_large", async () => {
    await remember();
    const huge = JSON.stringify({ ...clusterBody(), name: "x".repeat(1024 * 1024) });
    const res = await api.req("POST", "/v1/clusters", huge);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "payload_too_large", message: expect.stringContaining("1 MiB") });
  });
  it("a body nested deeper than 32 levels is 400 validation_failed naming the limit, before it is parsed; 32 levels are validated as usual", async () => {
    await remember();
    for (const depth of [33, 10_000]) {
      const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      for (const [method, path, body] of [
        ["POST", "/v1/clusters", `{"name":"deep","control_planes":1,"node_size":"small","workers":${nested.slice(1, -1)}}`],
        ["PATCH", "/v1/clusters/cls_0000000000000000", `{"workers":${nested.slice(1, -1)}}`],
        ["POST", "/v1/clusters", `{"name":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`],
      ] as const) {
        const res = await api.req(method, path, body);
        expect(res.status, `${method} nested ${depth}`).toBe(400);
        expect(res.body).toEqual({
          error: "validation_failed",
          message: "Request body nests objects and arrays deeper than the limit of 32 levels",
        });
      }
    }
    // Brackets inside strings are text, not nesting.
    const inName = await api.req("POST", "/v1/clusters", JSON.stringify(clusterBody({ name: "[".repeat(100) })));
    expect(inName.body.message).toMatch(/^name must be a string of 1 to 63/);
    const deepest = `{"name":"x","control_planes":1,"node_size":"small","workers":${"[".repeat(31)}${"]".repeat(31)}}`;
    expect((await api.req("POST", "/v1/clusters", deepest)).body.message).toMatch(/^workers must be an integer/);
  });
  it("a body of exactly 1 MiB is read (and then validated)", async () => {
    await remember();
    const pad = 1024 * 1024 - JSON.stringify({ ...clusterBody(), name: "" }).length;
    const body = JSON.stringify({ ...clusterBody(), name: "y".repeat(pad) });
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await api.req("POST", "/v1/clusters", body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^name must be a string of 1 to 63/);
    expect(res.text.length).toBeLessThan(500); // the 1 MiB value is not echoed back
  });
  it("a body with a non-JSON Content-Type is still parsed as JSON", async () => {
    const res = await api.req("POST", "/v1/clusters", JSON.stringify(clusterBody({ name: "form" })), {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(res.status).toBe(201);
    await emu.control.deleteCluster(res.body.id);
    clock.advanceSeconds(60);
    await remember();
  });
  it("a __proto__ key is an unknown field", async () => {
    await remember();
    const res = await api.req(
      "POST",
      "/v1/clusters",
      `{"name":"p","control_planes":1,"workers":1,"node_size":"small","__proto__":{"admin":true}}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Unknown field "__proto__"');
  });
});

describe("routes and methods", () => {
  const unknown = [
    "/v1",
    "/v1/",
    "/v1/clusters/",
    "/v1/cluster",
    "/v2/clusters",
    "/",
    "/v1/clusters/x/y/z",
    "/v1/tokens",
    `/v1/clusters/${"a".repeat(200)}`,
  ];
  for (const path of unknown) {
    it(`unknown route ${path.slice(0, 40)} is 404 not_found`, async () => {
      await remember();
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("not_found");
      expect(res.body.message.length).toBeLessThan(200);
    });
  }
  const wrong: Array<[string, string, string]> = [
    ["PUT", "/v1/clusters", "GET, POST"],
    ["DELETE", "/v1/clusters", "GET, POST"],
    ["POST", "/v1/clusters/ID", "GET, PATCH, DELETE"],
    ["PUT", "/v1/clusters/ID", "GET, PATCH, DELETE"],
    ["POST", "/v1/clusters/ID/kubeconfig", "GET"],
    ["DELETE", "/v1/clusters/ID/nodes", "GET"],
    ["PATCH", "/v1/clusters/ID/nodes/node_x", "GET"],
    ["HEAD", "/v1/clusters", "GET, POST"],
  ];
  for (const [method, path, allow] of wrong) {
    it(`${method} ${path} is 405 with Allow: ${allow}`, async () => {
      await remember();
      const res = await api.req(method, path.replace("ID", id), method === "HEAD" ? undefined : "{garbage");
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      if (method !== "HEAD") expect(res.body.error).toBe("method_not_allowed");
    });
  }
  it("an undecodable URL is 400 bad_request", async () => {
    await remember();
    const res = await api.get("/v1/clusters/%zz");
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("bad_request");
  });
  it("a raw request with a lying Content-Length gets a clear error", async () => {
    await remember();
    const answer = await raw(
      `POST /v1/clusters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${emu.token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"name":"x"}`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 400/);
  });
});

describe("state conflicts", () => {
  it("PATCH and DELETE on a cluster that is not running are 409 conflict", async () => {
    const c = (await api.post("/v1/clusters", clusterBody({ name: "busy" }))).body.id;
    await remember();
    const patch = await api.patch(`/v1/clusters/${c}`, { workers: 3 });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual({ error: "conflict", message: `Cluster ${c} is provisioning; it can be modified only when running` });
    const del = await api.del(`/v1/clusters/${c}`);
    expect(del.status).toBe(409);
    expect(del.body.message).toBe(`Cluster ${c} is provisioning; it can be deleted only when running or in error`);
    clock.advanceSeconds(1);
    expect((await api.patch(`/v1/clusters/${c}`, { workers: 3 })).status).toBe(200);
    await remember();
    expect((await api.patch(`/v1/clusters/${c}`, { workers: 4 })).status).toBe(409);
    expect((await api.del(`/v1/clusters/${c}`)).status).toBe(409);
    clock.advanceSeconds(1);
    expect((await api.del(`/v1/clusters/${c}`)).status).toBe(204);
    expect((await api.del(`/v1/clusters/${c}`)).status).toBe(204); // already deleting: 204 again
    clock.advanceSeconds(60);
    expect((await api.del(`/v1/clusters/${c}`)).status).toBe(404);
    await remember();
  });
});
