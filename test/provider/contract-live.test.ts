/**
 * The provider's create against a service on loopback that breaks the wire contract in one way
 * and is otherwise well-behaved (issue 40's cases): the broken answer fails the create at once,
 * naming the request, the field and what came; nothing of it is recorded or requested; and no
 * wait passes the create timeout, whatever the headers ask for. The waits run on a virtual
 * clock (the limiter's too), so the time they take is exact.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/client";
import { ClusterInitError } from "../../src/provider/errors";
import { ManualClock } from "@pulumi-cms/contract";
import { CmsError } from "../../src/shared/errors/cms-error";
import { type AnswerKind, type BreakingService, type Reply, WELL_SHAPED_PATH, breakingService } from "../support/breaking-service";
import { everyFace } from "../support/client";
import { clusterProvider, freshRuntime, inputs, rejection } from "../support/provider";

let svc: BreakingService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const ONE_MINUTE = 60_000;

/** The service, and the provider pointed at it with every wait on one virtual clock. */
async function serve(reply: (kind: AnswerKind, good: Reply, count: number) => Reply | undefined, runningAfter?: number) {
  svc = await breakingService(reply, runningAfter);
  const clock = new ManualClock(Date.now());
  freshRuntime({
    env: { CMS_ENDPOINT: svc.url, CMS_TOKEN: svc.token },
    clock,
    clientOptions: { clock, limiter: new RateLimiter({ clock }), minRetryDelayMs: 10, maxRetryDelayMs: 100, settleWindowMs: 200 },
  });
  return { svc, clock };
}

/** `pulumi up` of one Cluster with `customTimeouts: { create: "1m" }`, as the engine calls the provider. */
async function createWithin1m(clock: ManualClock) {
  const start = clock.now();
  const error = await rejection(clusterProvider.create(inputs({ name: "web", __timeouts: { create: "1m" } })));
  return { error, waited: clock.now() - start };
}

/** What every case holds: the requested paths, the token, the time. */
function expectContained(s: BreakingService, error: Error, waited: number): void {
  expect(waited).toBeLessThanOrEqual(ONE_MINUTE);
  for (const request of s.requests) expect(request.split(" ")[1].split("?")[0]).toMatch(WELL_SHAPED_PATH);
  expect(everyFace(error)).not.toContain(s.token);
  expect(error).toBeInstanceOf(CmsError);
}

const farReset = () => ({
  "x-ratelimit-limit": "100",
  "x-ratelimit-remaining": "0",
  "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 50 * 60),
});

describe("an answer that breaks the contract fails the create at once and reaches nothing", () => {
  it("1. the create answers 201 with a listing: no poll of /v1/clusters/undefined, nothing recorded", async () => {
    const { svc, clock } = await serve((kind) =>
      kind === "create" ? { status: 201, body: { items: [], total: 0, page: 1, per_page: 20 } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error.message).toContain('CMS API POST /v1/clusters answered 201 with no "id"');
    expect(error).not.toBeInstanceOf(ClusterInitError);
    expect(error.code).toBe("invalid_response");
    expect(svc.requests).toEqual(["POST /v1/clusters"]);
    expect(waited).toBe(0);
    expectContained(svc, error, waited);
  });

  it("2. the create answers the id ../../admin: it is never recorded nor put into a path", async () => {
    const { svc, clock } = await serve((kind, good) =>
      kind === "create" ? { ...good, body: { ...(good.body as object), id: "../../admin" } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error.message).toContain(
      'CMS API POST /v1/clusters answered 201 with "id" "../../admin", which is not a cluster id (cls_ followed by',
    );
    expect(error).not.toBeInstanceOf(ClusterInitError);
    expect(svc.requests).toEqual(["POST /v1/clusters"]);
    expectContained(svc, error, waited);
  });

  it("3. a GET of the new cluster answers another cluster: an error, and the other's outputs are not recorded", async () => {
    const other = { id: "cls_00000000000000ff", name: "someone-else", endpoint: "https://elsewhere.example:6443" };
    const { svc, clock } = await serve((kind, good) =>
      kind === "get" ? { ...good, body: { ...(good.body as object), ...other } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.id).toBe(svc.id);
    expect(error.message).toContain(
      `CMS API GET /v1/clusters/${svc.id} answered 200 with "id" "${other.id}" where "${svc.id}" was asked for: another cluster`,
    );
    const recorded = JSON.stringify(error.properties);
    for (const value of Object.values(other)) expect(recorded).not.toContain(value);
    expect(svc.requests.filter((r) => r.startsWith("GET "))).toHaveLength(1);
    expectContained(svc, error, waited);
  });

  it('4. a status that is not a string (7) fails the first poll, instead of waiting to the timeout with last status "7"', async () => {
    const { svc, clock } = await serve((kind, good) =>
      kind === "get" ? { ...good, body: { ...(good.body as object), status: 7 } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.message).toContain(`CMS API GET /v1/clusters/${svc.id} answered 200 with "status" 7 where the contract has a string`);
    expect(error.message).not.toContain("timed out");
    expect(waited).toBeLessThan(ONE_MINUTE);
    expectContained(svc, error, waited);
  });

  it("5. a poll answered 200 with X-RateLimit-Remaining: 0, a reset 50 minutes away and a body that is not a cluster: over within the minute", async () => {
    const { svc, clock } = await serve((kind) => (kind === "get" ? { status: 200, body: { items: [] }, headers: farReset() } : undefined));
    const { error, waited } = await createWithin1m(clock);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.message).toContain(`CMS API GET /v1/clusters/${svc.id} answered 200 with no "id"`);
    expectContained(svc, error, waited);
  });
});

describe("a kubeconfig answer that is no kubeconfig", () => {
  it("6. a 200 HTML page as the kubeconfig fails the create naming it, and the page is recorded nowhere", async () => {
    const page = "<!doctype html>\n<html><body>Please sign in</body></html>\n";
    const { svc, clock } = await serve((kind) =>
      kind === "kubeconfig" ? { status: 200, body: page, headers: { "content-type": "text/html" } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.id).toBe(svc.id);
    expect(error.message).toContain(
      `CMS API GET /v1/clusters/${svc.id}/kubeconfig answered 200 with a body that is not a kubeconfig ("<!doctype html>`,
    );
    expect(JSON.stringify(error.properties)).not.toContain("sign in");
    expectContained(svc, error, waited);
  });
});

describe("a refresh's kubeconfig", () => {
  const page = "<!doctype html>\n<html><body>Please sign in</body></html>\n";

  /** A cluster created with a good kubeconfig, whose kubeconfig answers are `page` from then on. */
  async function createdThenPage() {
    let broken = false;
    const { svc } = await serve((kind) => (broken && kind === "kubeconfig" ? { status: 200, body: page } : undefined), 0);
    const { id, outs } = await clusterProvider.create(inputs({ name: "web" }));
    broken = true;
    return { svc, id, outs };
  }

  it("is checked when it differs from the stack's: a page in its place fails the refresh, and is recorded nowhere", async () => {
    const { svc, id, outs } = await createdThenPage();
    const error = await rejection(clusterProvider.read(id, outs));
    expect(error.message).toContain(`CMS API GET /v1/clusters/${svc.id}/kubeconfig answered 200 with a body that is not a kubeconfig`);
    expect(JSON.stringify(error)).not.toContain("sign in");
  });

  it("the same as the stack's is kept as it is, without reading it again (whatever it holds: the stack has it already)", async () => {
    const { svc, id, outs } = await createdThenPage();
    const result = await clusterProvider.read(id, { ...outs, kubeconfig: page });
    expect(result.props?.kubeconfig).toBe(page);
    expect(svc.requests.filter((r) => r.includes("/kubeconfig"))).toHaveLength(2);
  });
});

describe("every wait within the operation's time, polls included", () => {
  it("5'. every answer says the window is spent until 50 minutes from now: the create with a 1-minute timeout ends at the minute, naming the hold", async () => {
    const { svc, clock } = await serve((_kind, good) => ({ ...good, headers: farReset() }), Number.POSITIVE_INFINITY);
    const { error, waited } = await createWithin1m(clock);
    expect(waited).toBe(ONE_MINUTE);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.message).toContain("timed out after 1m");
    expect(error.message).toContain("the rate limiter's hold of 1m30s");
    expect(error.message).toContain("of the create timeout");
    expectContained(svc, error, waited);
  });
});

describe("what the service may add is tolerated as docs/api-contract.md says", () => {
  it("an unknown status is waited on, never taken for running", async () => {
    const { svc, clock } = await serve((kind, good) =>
      kind === "get" ? { ...good, body: { ...(good.body as object), status: "hibernating" } } : undefined,
    );
    const { error, waited } = await createWithin1m(clock);
    expect(error).toBeInstanceOf(ClusterInitError);
    expect(error.message).toContain(
      'timed out after 1m waiting for cluster cls_00000000000000aa to become running (last status "hibernating")',
    );
    expect(waited).toBe(ONE_MINUTE);
    expectContained(svc, error, waited);
  });

  it("fields the contract does not name are ignored", async () => {
    const { svc } = await serve((kind, good) =>
      kind === "get" || kind === "create" ? { ...good, body: { ...(good.body as object), region: "eu-1", labels: { a: 1 } } } : undefined,
    );
    const res = await clusterProvider.create(inputs({ name: "web", __timeouts: { create: "1m" } }));
    expect(res.id).toBe(svc.id);
    expect(res.outs.status).toBe("running");
  });
});
