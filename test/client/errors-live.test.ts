import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../packages/emulator/src";
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
  isConflict,
  isNotFound,
} from "../../src/client";
import { safeMessage } from "../../src/connection";
import { SMALL, client, emulator, everyFace, rejection } from "../support/client";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.control.reset();
});

const newToken = (label: string) => `cms_${label}_${randomBytes(12).toString("hex")}`;

async function counts(): Promise<Record<string, number>> {
  return emu.control.requestCounts();
}

describe("typed errors from the emulator", () => {
  it("401 for an unknown token: the Pulumi message names cms:token / CMS_TOKEN, is not retried, and never shows the token", async () => {
    const token = newToken("unknown");
    const c = client(emu, { token });
    const e = await rejection(c.listClusters());
    expect(e).toBeInstanceOf(UnauthorizedError);
    expect(e).toMatchObject({ status: 401, code: "unauthorized", method: "GET", path: "/v1/clusters" });
    expect(safeMessage(e)).toContain("cms:token");
    expect(safeMessage(e)).toContain("CMS_TOKEN");
    expect(everyFace(e)).not.toContain(token);
    expect(c.retries).toEqual([]);
    expect((await counts())["GET /v1/clusters"]).toBe(1);
  });

  it("401 for an expired token", async () => {
    const token = newToken("expired");
    await emu.control.addToken({
      token,
      permissions: ["read", "write"],
      scope: "*",
      plan: "enterprise",
      expires_at: "2020-01-01T00:00:00Z",
    });
    const e = await rejection(client(emu, { token }).getCluster("cls_0000000000000000"));
    expect(e).toBeInstanceOf(UnauthorizedError);
    expect((e as unknown as ApiError).serverMessage).toMatch(/expired|invalid/i);
    expect(everyFace(e)).not.toContain(token);
  });

  it("403 for a read-only token creating a cluster: says which permission and scope are needed", async () => {
    const token = newToken("readonly");
    await emu.control.addToken({ token, permissions: ["read"], scope: "*", plan: "enterprise" });
    const e = await rejection(client(emu, { token }).createCluster({ name: "nope", ...SMALL }));
    expect(e).toBeInstanceOf(ForbiddenError);
    expect(e).toMatchObject({ status: 403, code: "forbidden", method: "POST", path: "/v1/clusters" });
    expect(e.message).toContain("needs a token with the `write` permission and scope `*` or `cluster:*`");
    expect((e as unknown as ApiError).serverMessage).toBeTruthy();
    expect(e.message).toContain((e as unknown as ApiError).serverMessage!.replace(/\.$/, ""));
    expect(everyFace(e)).not.toContain(token);
    expect(await emu.control.clusters()).toEqual([]);
    expect((await counts())["POST /v1/clusters"]).toBe(1);
  });

  it("403 for a cluster-scoped token on another cluster: names that cluster", async () => {
    const admin = client(emu);
    const mine = await admin.createCluster({ name: "mine", ...SMALL });
    const other = await admin.createCluster({ name: "other", ...SMALL });
    const token = newToken("scoped");
    await emu.control.addToken({ token, permissions: ["read", "write"], scope: `cluster:${mine.id}`, plan: "enterprise" });
    const scoped = client(emu, { token });
    expect((await scoped.getCluster(mine.id)).id).toBe(mine.id);
    const e = await rejection(scoped.getCluster(other.id));
    expect(e).toBeInstanceOf(ForbiddenError);
    expect(e.message).toContain(`Reading cluster \`${other.id}\` needs a token with the \`read\` permission`);
    expect(e.message).toContain(`\`cluster:${other.id}\``);
    expect(everyFace(e)).not.toContain(token);
  });

  it("404 for an unknown cluster and node, not retried", async () => {
    const c = client(emu);
    const e = await rejection(c.getCluster("cls_0000000000000000"));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(isNotFound(e)).toBe(true);
    // The service's own words name the missing cluster: said once, without a hint that repeats them.
    expect(e.message).toBe(
      "CMS API GET /v1/clusters/cls_0000000000000000 failed with 404 not_found: Cluster cls_0000000000000000 not found.",
    );
    expect((await counts())["GET /v1/clusters/:cluster_id"]).toBe(1);
    const { id } = await c.createCluster({ name: "n", ...SMALL });
    const n = await rejection(c.getNode(id, "node_0000000000000000"));
    expect(n).toBeInstanceOf(NotFoundError);
    expect(n.message).toBe(
      `CMS API GET /v1/clusters/${id}/nodes/node_0000000000000000 failed with 404 not_found: Node node_0000000000000000 not found in cluster ${id}.`,
    );
    expect(c.retries).toEqual([]);
  });

  it("400 validation: names the field, nothing created, not retried", async () => {
    const c = client(emu);
    const e = await rejection(c.createCluster({ name: "bad name!", ...SMALL }));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e).toMatchObject({ status: 400, code: "validation_failed" });
    expect(e.message).toMatch(/name/);
    const cp = await rejection(c.createCluster({ name: "ok", ...SMALL, control_planes: 2 }));
    expect(cp).toBeInstanceOf(ValidationError);
    expect(cp.message).toMatch(/control_planes/);
    expect(await emu.control.clusters()).toEqual([]);
    expect((await counts())["POST /v1/clusters"]).toBe(2);
    expect(c.retries).toEqual([]);
  });

  it("409 when modifying a cluster that is still provisioning", async () => {
    await emu.control.setTimings({ provisionSeconds: 60 });
    try {
      const c = client(emu);
      const { id } = await c.createCluster({ name: "busy", ...SMALL });
      const e = await rejection(c.updateCluster(id, { workers: 2 }));
      expect(e).toBeInstanceOf(ConflictError);
      expect(isConflict(e)).toBe(true);
      expect(e).toMatchObject({ status: 409, code: "conflict", method: "PATCH", path: `/v1/clusters/${id}` });
      expect(e.message).toContain("wait until it is `running`");
      expect((await counts())["PATCH /v1/clusters/:cluster_id"]).toBe(1);
    } finally {
      await emu.control.setTimings({ provisionSeconds: 0.2 });
    }
  });

  it("a network error is our NetworkError, carrying no request config or token", async () => {
    await emu.control.injectFault({ kind: "drop", method: "GET", path: "/v1/clusters", count: 5 });
    const c = client(emu, { retries: 1 });
    const e = await rejection(c.listClusters());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).not.toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ method: "GET", path: "/v1/clusters" });
    expect((e as unknown as NetworkError).code).toMatch(/^E[A-Z]+/);
    expect(e.message).toContain(emu.url);
    expect(Object.keys(e).sort()).toEqual(["code", "method", "name", "path", "timedOut"]);
    expect(everyFace(e)).not.toContain(emu.token);
    expect(everyFace(e)).not.toMatch(/authorization|bearer/i);
    expect(c.retries.length).toBe(1);
  });

  it("a timeout is a NetworkError with timedOut", async () => {
    await emu.control.injectFault({ kind: "latency", method: "GET", path: "/v1/clusters", latencyMs: 400, count: 1 });
    const e = await rejection(client(emu, { retries: 0, timeoutMs: 100 }).listClusters());
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as unknown as NetworkError).timedOut).toBe(true);
    expect(e.message).toContain("timed out");
    expect(everyFace(e)).not.toContain(emu.token);
  });

  it("a refused connection is a NetworkError", async () => {
    const gone = await emulator();
    const url = gone.url;
    await gone.close();
    const e = await rejection(client(emu, { endpoint: url, retries: 1, limiter: false }).listClusters());
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as unknown as NetworkError).code).toBe("ECONNREFUSED");
    expect(everyFace(e)).not.toContain(emu.token);
  });

  it("no error of any kind carries the token", async () => {
    const token = newToken("leak");
    await emu.control.addToken({ token, permissions: ["read"], scope: "*", plan: "enterprise" });
    const c = client(emu, { token, retries: 0, limiter: false });
    await emu.control.injectFault({ kind: "status", status: 500, method: "GET", count: 1 });
    await emu.control.injectFault({ kind: "rate_limit", method: "GET", path: "/v1/clusters/:cluster_id", count: 1 });
    const errors = [
      await rejection(c.listClusters()), // 500
      await rejection(c.getCluster("cls_0000000000000000")), // 429
      await rejection(c.getCluster("cls_0000000000000000")), // 404
      await rejection(c.createCluster({ name: "x", ...SMALL })), // 403
      await rejection(c.deleteCluster("cls_0000000000000000")), // 403
    ];
    expect(errors.map((e) => e.constructor.name)).toEqual([
      "ServerError",
      "RateLimitedError",
      "NotFoundError",
      "ForbiddenError",
      "ForbiddenError",
    ]);
    for (const e of errors) {
      expect(everyFace(e)).not.toContain(token);
      expect(e).not.toHaveProperty("config");
      expect(e).not.toHaveProperty("request");
      expect(e).not.toHaveProperty("response");
      expect(e).not.toHaveProperty("attemptNumber");
    }
  });
});
