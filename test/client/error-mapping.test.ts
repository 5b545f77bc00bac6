import { describe, expect, it } from "vitest";
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  ValidationError,
  errorFromResponse,
  isApiError,
  isConflict,
  isNotFound,
  networkErrorFrom,
  parseErrorBody,
} from "../../src/client";
import { safeMessage } from "../../src/connection";

const TOKEN = "cms_live_0123456789abcdefSECRET";
const body = (error: string, message: string) => JSON.stringify({ error, message });
const map = (status: number, b: string | undefined, method = "GET", path = "/v1/clusters/cls_1") =>
  errorFromResponse({ status, body: b, method, path, secrets: [TOKEN] });

/** Everything an error can show when logged, thrown across a process boundary or serialised. */
function everyFace(e: Error): string {
  return [e.message, e.stack ?? "", String(e), JSON.stringify(e), JSON.stringify(Object.entries(e)), require("node:util").inspect(e)].join(
    "\n",
  );
}

describe("status and code mapping", () => {
  it.each([
    [401, "unauthorized", UnauthorizedError],
    [403, "forbidden", ForbiddenError],
    [404, "not_found", NotFoundError],
    [400, "validation_failed", ValidationError],
    [400, "invalid_json", ValidationError],
    [422, "validation_failed", ValidationError],
    [409, "conflict", ConflictError],
    [429, "rate_limited", RateLimitedError],
    [500, "internal", ServerError],
    [502, "bad_gateway", ServerError],
    [503, "unavailable", ServerError],
  ])("%i %s -> %o", (status, code, cls) => {
    const e = map(status, body(code, "text"));
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe(cls.name);
    expect(e).toMatchObject({ status, code, method: "GET", path: "/v1/clusters/cls_1", serverMessage: "text" });
  });

  it("maps by body code when the status is unusual", () => {
    expect(map(400, body("not_found", "no such cluster"))).toBeInstanceOf(NotFoundError);
    expect(map(400, body("conflict", "busy"))).toBeInstanceOf(ConflictError);
    expect(map(400, body("unauthorized", "bad token"))).toBeInstanceOf(UnauthorizedError);
    expect(map(422, body("forbidden", "nope"))).toBeInstanceOf(ForbiddenError);
    expect(map(418, body("rate_limited", "slow down"))).toBeInstanceOf(RateLimitedError);
    expect(map(403, body("rate_limited", "slow down"))).toBeInstanceOf(RateLimitedError);
  });

  it("lets an unambiguous status win over a contradicting code", () => {
    expect(map(404, body("validation_failed", "x"))).toBeInstanceOf(NotFoundError);
    expect(map(500, body("not_found", "x"))).toBeInstanceOf(ServerError);
  });

  it("derives a code when the body has none, and keeps unknown statuses a plain ApiError", () => {
    expect(map(404, "")).toMatchObject({ code: "not_found" });
    expect(map(500, undefined)).toMatchObject({ code: "server_error" });
    const e = map(405, body("method_not_allowed", "no"));
    expect(e.constructor).toBe(ApiError);
    expect(e.code).toBe("method_not_allowed");
  });

  it("turns a non-JSON body into a clean message", () => {
    const html = map(502, "<html><body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body></html>");
    expect(html).toBeInstanceOf(ServerError);
    expect(html.message).toBe(
      "CMS API GET /v1/clusters/cls_1 failed with 502 server_error. The service failed; retries did not help. Try again later.",
    );
    const text = map(500, "upstream   timed\nout");
    expect(text.message).toContain("upstream timed out");
    expect(parseErrorBody("x".repeat(500)).message!.length).toBeLessThanOrEqual(201);
    expect(parseErrorBody("[1,2]")).toEqual({});
  });
});

describe("messages tell the user what to do", () => {
  it("401 says the token was rejected, once; the Pulumi advice (cms:token, CMS_TOKEN) is the provider's to add", () => {
    const e = map(401, body("unauthorized", "Token is invalid or expired"));
    expect(e.message).toBe("CMS API GET /v1/clusters/cls_1 failed with 401 unauthorized: Token is invalid or expired.");
    expect(safeMessage(e)).toBe(
      "CMS API GET /v1/clusters/cls_1 failed with 401 unauthorized: Token is invalid or expired. " +
        "Set the token with `pulumi config set --secret cms:token <token>` or the `CMS_TOKEN` environment variable.",
    );
    // Without the service's words, the hint says what happened.
    const bare = map(401, "");
    expect(bare.message).toContain("The API token was rejected (missing, invalid, expired or revoked): use a valid token.");
    expect(bare.message).not.toMatch(/pulumi|cms:token|CMS_TOKEN/);
  });

  it("403 on create says which permission and scope are needed", () => {
    const e = map(403, body("forbidden", "Insufficient permissions"), "POST", "/v1/clusters");
    expect(e.message).toContain("Insufficient permissions");
    expect(e.message).toContain("Creating clusters needs a token with the `write` permission and scope `*` or `cluster:*`");
  });

  it("403 on one cluster names the cluster and the scopes that would grant it", () => {
    const del = map(403, body("forbidden", "Insufficient permissions"), "DELETE", "/v1/clusters/cls_abc");
    expect(del.message).toContain(
      "Deleting cluster `cls_abc` needs a token with the `write` permission and scope `*`, `cluster:*` or `cluster:cls_abc`",
    );
    const get = map(403, body("forbidden", "out of scope"), "GET", "/v1/clusters/cls_abc/kubeconfig");
    expect(get.message).toContain("Downloading the kubeconfig of cluster `cls_abc` needs a token with the `read` permission");
  });

  it("404 names the missing cluster or node", () => {
    expect(map(404, body("not_found", "x"), "GET", "/v1/clusters/cls_9").message).toContain("Cluster `cls_9` does not exist");
    expect(map(404, body("not_found", "x"), "GET", "/v1/clusters/cls_9/nodes/node_1").message).toContain(
      "Node `node_1` of cluster `cls_9`",
    );
  });

  it("409 says to wait for running; 429 says how long the server asked to wait", () => {
    expect(map(409, body("conflict", "busy"), "PATCH", "/v1/clusters/cls_2").message).toContain("wait until it is `running`");
    const rl = errorFromResponse({
      status: 429,
      body: body("rate_limited", "slow"),
      method: "GET",
      path: "/v1/clusters",
      retryAfterMs: 12_000,
    });
    expect(rl.retryAfterMs).toBe(12_000);
    expect(rl.message).toContain("12 s");
  });
});

describe("secrets", () => {
  it("scrubs a token the server echoes back from every face of the error", () => {
    const e = map(401, body("unauthorized", `token ${TOKEN} is expired`));
    expect(e.serverMessage).toBe("token [secret] is expired");
    expect(everyFace(e)).not.toContain(TOKEN);
  });

  it("scrubs the token from network error details", () => {
    const e = networkErrorFrom({
      method: "get",
      path: "/v1/clusters",
      code: "ECONNRESET",
      detail: `socket hang up ${TOKEN}`,
      secrets: [TOKEN],
    });
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).toMatchObject({ method: "GET", path: "/v1/clusters", code: "ECONNRESET", timedOut: false });
    expect(everyFace(e)).not.toContain(TOKEN);
  });
});

describe("network errors", () => {
  it("say whether it timed out and where the endpoint is", () => {
    const e = networkErrorFrom({ method: "GET", path: "/v1/clusters", code: "ETIMEDOUT", timedOut: true, origin: "http://127.0.0.1:9" });
    expect(e.timedOut).toBe(true);
    expect(e.message).toBe(
      "CMS API GET /v1/clusters timed out without a response (ETIMEDOUT). Check that the endpoint http://127.0.0.1:9 is reachable.",
    );
    expect(e).not.toBeInstanceOf(ApiError);
  });
});

describe("predicates", () => {
  it("recognise our errors, and look-alikes from another copy of the package", () => {
    const nf = map(404, body("not_found", "x"));
    expect(isNotFound(nf)).toBe(true);
    expect(isConflict(nf)).toBe(false);
    expect(isConflict(map(409, body("conflict", "x")))).toBe(true);
    expect(isApiError(nf)).toBe(true);
    const foreign = JSON.parse(JSON.stringify({ ...nf, name: "NotFoundError" }));
    expect(isNotFound(foreign)).toBe(true);
    expect(isNotFound({ status: 404, code: "not_found", path: "/v1/x" })).toBe(true);
    expect(isNotFound(new Error("not found"))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
    expect(isConflict(null)).toBe(false);
  });
});
