/**
 * Issue 40's cases with the real CLI: `pulumi up` of one Cluster against a service on loopback
 * that breaks the wire contract in one way (test/support/breaking-service.ts). The run fails at
 * once naming the request and the field, records nothing it should not, and never outlasts the
 * create timeout whatever the rate-limit headers say.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AnswerKind, type BreakingService, type Reply, WELL_SHAPED_PATH, breakingService } from "../../support/breaking-service";
import { type PulumiProject, createProject, findPulumi, lifecycleSkipped, teardown } from "./harness.mjs";

const STEP_TIMEOUT = 5 * 60_000;

describe.skipIf(lifecycleSkipped())("lifecycle: a service that breaks the contract", () => {
  let svc: BreakingService | undefined;
  let project: PulumiProject | undefined;

  beforeAll(async () => {
    await findPulumi();
  }, STEP_TIMEOUT);

  // The service goes first: a destroy against it would only meet its holds again (nothing bills).
  afterEach(async () => {
    await svc?.close();
    await teardown(project ? [project] : [], undefined);
    project = undefined;
    svc = undefined;
  }, STEP_TIMEOUT);

  async function upAgainst(
    reply: (kind: AnswerKind, good: Reply, count: number) => Reply | undefined,
    createTimeout: string,
    runningAfter?: number,
  ) {
    svc = await breakingService(reply, runningAfter);
    project = await createProject({
      name: "cms-lc-contract",
      config: { "cms:endpoint": svc.url, name: "web", createTimeout },
      secretConfig: { "cms:token": svc.token },
    });
    const started = Date.now();
    const up = await project.up([], { allowFailure: true });
    return { up, seconds: (Date.now() - started) / 1000, project, svc };
  }

  it(
    "1. a create answered with a listing fails the up at once; nothing is recorded, nothing else is requested",
    async () => {
      const { up, project, svc } = await upAgainst(
        (kind) => (kind === "create" ? { status: 201, body: { items: [], total: 0, page: 1, per_page: 20 } } : undefined),
        "1m",
      );
      expect(up.code).not.toBe(0);
      expect(up.output).toMatch(/CMS API POST \/v1\/clusters answered 201 with no \\?"id\\?"/);
      expect(up.output).not.toContain("undefined: cluster undefined accepted");
      expect(up.output).not.toContain(svc.token);
      expect(svc.requests).toEqual(["POST /v1/clusters"]);
      expect(await project.clusterResources()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "2. an id of ../../admin is never recorded nor put into a path",
    async () => {
      const { up, project, svc } = await upAgainst(
        (kind, good) => (kind === "create" ? { ...good, body: { ...(good.body as object), id: "../../admin" } } : undefined),
        "1m",
      );
      expect(up.code).not.toBe(0);
      expect(up.output).toContain("which is not a cluster id");
      for (const request of svc.requests) expect(request.split(" ")[1].split("?")[0]).toMatch(WELL_SHAPED_PATH);
      expect(await project.clusterResources()).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "5. every answer says the window is spent for 50 minutes: the up with a 20 s create timeout ends at that timeout, naming the hold",
    async () => {
      const headers = {
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 50 * 60),
      };
      const { up, seconds, project, svc } = await upAgainst((_kind, good) => ({ ...good, headers }), "20s", Number.POSITIVE_INFINITY);
      expect(up.code).not.toBe(0);
      expect(up.output).toContain("timed out after 20s");
      expect(up.output).toContain("the rate limiter's hold");
      // The limiter alone would hold each poll 90 s: far past the timeout and the engine's start-up.
      expect(seconds).toBeLessThan(80);
      const [res] = await project.clusterResources();
      expect(res.id).toBe(svc.id);
    },
    STEP_TIMEOUT,
  );
});
