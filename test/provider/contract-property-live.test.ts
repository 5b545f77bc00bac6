/**
 * Property: whatever single breach of the wire contract a service on loopback makes, in whichever
 * answer, with whichever status (any success for the client's calls; any status at all for the
 * provider's create) and under whatever headers (rate limits, `Retry-After`, content type), the
 * client's calls and the provider's create
 * - wait no longer than their deadline (virtual time, exact),
 * - request and record no id outside its shape,
 * - show the token in no message,
 * - fail, when they fail, with one of the package's errors naming the request (`/v1/clusters…`) or,
 *   for an answer that means something else (a 404), the cluster.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type CmsClient, ContractError, RateLimiter, createClient } from "../../src/client";
import { clusterProvider } from "../../src/hosts/dynamic/cluster-provider";
import { ClusterInitError } from "../../src/provider/errors";
import { isClusterId, ManualClock } from "@pulumi-cms/contract";
import { CmsError } from "../../src/shared/errors/cms-error";
import { resetProcess } from "../support/process";
import {
  type AnswerKind,
  type BreakingService,
  type Reply,
  SERVICE_TOKEN,
  WELL_SHAPED_PATH,
  breakingService,
} from "../support/breaking-service";
import { everyFace } from "../support/client";
import { inputs } from "../support/provider";
import { type Violation, violate, violations } from "../support/violations";

const DEADLINE_MS = 60_000;

let svc: BreakingService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

/** Rate-limit headers on every answer: absent, spent with a reset anywhere from now to 2096, or nonsense. */
const rateHeaders = fc.option(
  fc.record({
    "x-ratelimit-limit": fc.constantFrom("100", "x"),
    "x-ratelimit-remaining": fc.constantFrom("0", "1", "-3", "abc"),
    "x-ratelimit-reset": fc.oneof(
      fc.integer({ min: 0, max: 4_000_000_000 }).map(String),
      fc.integer({ min: 0, max: 3_600 }).map((s) => String(Math.ceil(Date.now() / 1000) + s)),
      fc.constantFrom("", "soon", "9999999999"),
    ),
  }),
  { nil: undefined },
);

/** The headers of the broken answer: rate limits as above, a `Retry-After` or none, any content type or none. */
const brokenHeaders = fc
  .record({
    rate: rateHeaders,
    retryAfter: fc.option(fc.constantFrom("0", "2", "3600", "-1", "Wed, 21 Oct 2099 07:28:00 GMT", "soon"), { nil: undefined }),
    contentType: fc.option(fc.constantFrom("application/json", "text/html; charset=utf-8", "text/plain", "application/octet-stream", ""), {
      nil: undefined,
    }),
  })
  .map(({ rate, retryAfter, contentType }) => ({
    ...rate,
    ...(retryAfter === undefined ? {} : { "retry-after": retryAfter }),
    ...(contentType === undefined ? {} : { "content-type": contentType }),
  }));

/** A success status the service might answer instead of the documented one (all read alike). */
const successStatus = fc.constantFrom(undefined, 200, 201, 202, 203);
/** Any status: successes, the client's errors, throttling, the server's errors. */
const anyStatus = fc.constantFrom(undefined, 200, 201, 202, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503);

interface Script {
  kind: AnswerKind;
  nth: number;
  violation: Violation;
  /** The broken answer's status; undefined: the good answer's. */
  status: number | undefined;
  /** On the broken answer. */
  brokenHeaders: Record<string, string>;
  /** On every answer. */
  headers: Record<string, string> | undefined;
}

/** The service breaking the `nth` answer of `kind`, with `headers` on every answer. */
function replyOf(script: Script) {
  return (kind: AnswerKind, good: Reply, count: number): Reply => {
    const asked = kind === "get" || kind === "patch" || kind === "node" || kind === "nodes";
    if (kind !== script.kind || count !== script.nth) return { ...good, headers: { ...good.headers, ...script.headers } };
    const reply = violate(good, script.violation, asked);
    return { ...reply, status: script.status ?? reply.status, headers: { ...reply.headers, ...script.headers, ...script.brokenHeaders } };
  };
}

function expectNothingEscaped(s: BreakingService, error: unknown, waited: number): void {
  expect(waited).toBeLessThanOrEqual(DEADLINE_MS);
  for (const request of s.requests) expect(request.split(" ")[1].split("?")[0]).toMatch(WELL_SHAPED_PATH);
  if (error === undefined) return;
  expect(error).toBeInstanceOf(CmsError);
  // A broken answer names its request; an answer that means something (a 404: the cluster is
  // gone) may name the cluster instead.
  expect((error as Error).message).toMatch(new RegExp(`/v1/clusters|${s.id}`));
  expect(everyFace(error)).not.toContain(SERVICE_TOKEN);
}

/** Each client call whose answer the script can break: the answer kind it reads and the call. */
const CALLS: Record<string, { kind: AnswerKind; call: (c: CmsClient, id: string) => Promise<unknown> }> = {
  createCluster: { kind: "create", call: (c) => c.createCluster({ name: "web", control_planes: 1, workers: 1, node_size: "small" }) },
  getCluster: { kind: "get", call: (c, id) => c.getCluster(id) },
  updateCluster: { kind: "patch", call: (c, id) => c.updateCluster(id, { workers: 2 }) },
  listClusters: { kind: "list", call: (c) => c.listClusters() },
  listAllClusters: { kind: "list", call: (c) => c.listAllClusters() },
  listNodes: { kind: "nodes", call: (c, id) => c.listNodes(id) },
  getNode: { kind: "node", call: (c, id) => c.getNode(id, "node_00000000000000b1") },
  getKubeconfig: { kind: "kubeconfig", call: (c, id) => c.getKubeconfig(id) },
};

describe("random breaches of the contract", () => {
  it("every client call refuses the broken answer, within its deadline, naming the request and never the token", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(CALLS)),
        violations(SERVICE_TOKEN),
        successStatus,
        brokenHeaders,
        rateHeaders,
        async (name, violation, status, broken, headers) => {
          const { kind, call } = CALLS[name];
          svc = await breakingService(replyOf({ kind, nth: 1, violation, status, brokenHeaders: broken, headers }));
          const s = svc;
          // Every call but the create needs the cluster to exist, which a well-behaved create makes.
          const setup = createClient({ endpoint: s.url, token: s.token, limiter: false });
          if (kind !== "create") await setup.createCluster({ name: "web", control_planes: 1, workers: 1, node_size: "small" });
          s.requests.length = 0;
          const clock = new ManualClock(Date.now());
          const client = createClient({
            endpoint: s.url,
            token: s.token,
            clock,
            limiter: new RateLimiter({ clock }),
            deadlineMs: DEADLINE_MS,
            deadlineName: "create timeout",
            minRetryDelayMs: 10,
            maxRetryDelayMs: 100,
          });
          const start = clock.now();
          let error: unknown;
          try {
            await call(client, s.id);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(ContractError);
          expect((error as ContractError).retryAfterMs).toBeUndefined();
          // Never retried: one request, the broken answer's.
          expect(s.requests).toHaveLength(1);
          expectNothingEscaped(s, error, clock.now() - start);
          await s.close();
        },
      ),
      { numRuns: 120 },
    );
  });

  it("the provider's create ends within its timeout and records no id outside its shape", async () => {
    const script = fc.record({
      kind: fc.constantFrom<AnswerKind>("create", "get", "nodes", "kubeconfig"),
      nth: fc.integer({ min: 1, max: 2 }),
      violation: violations(SERVICE_TOKEN),
      status: anyStatus,
      brokenHeaders,
      headers: rateHeaders,
    });
    await fc.assert(
      fc.asyncProperty(script, async (sc) => {
        svc = await breakingService(replyOf(sc));
        const s = svc;
        const clock = new ManualClock(Date.now());
        resetProcess({
          env: { CMS_ENDPOINT: s.url, CMS_TOKEN: s.token },
          clock,
          clientOptions: { clock, limiter: new RateLimiter({ clock }), minRetryDelayMs: 10, maxRetryDelayMs: 100, settleWindowMs: 200 },
        });
        const start = clock.now();
        let error: unknown;
        try {
          const res = await clusterProvider.create(inputs({ name: "web", __timeouts: { create: "1m" } }));
          expect(isClusterId(res.id)).toBe(true);
        } catch (e) {
          error = e;
          if (e instanceof ClusterInitError) expect(isClusterId(e.id)).toBe(true);
          else expect((e as { id?: unknown }).id).toBeUndefined();
        }
        expectNothingEscaped(s, error, clock.now() - start);
        await s.close();
      }),
      { numRuns: 60 },
    );
  });
});
