/** The predicates the provider decides with: retry, gone, busy. */
import { describe, expect, it } from "vitest";
import {
  ConflictError,
  NetworkError,
  NotFoundError,
  ServerError,
  UnauthorizedError,
  isConflict,
  isNotFound,
  isTransient,
  statusOf,
} from "../../../src/client";

const api = (Cls: typeof ServerError, status: number) => new Cls({ status, code: "x", message: "m", method: "GET", path: "/v1/clusters" });

describe("error predicates", () => {
  it("tells transient failures, not-found and conflict apart, by shape as well as by class", () => {
    expect(isTransient(api(ServerError, 503))).toBe(true);
    expect(isTransient(api(ServerError, 429))).toBe(true);
    expect(isTransient(new NetworkError({ method: "GET", path: "/v1/clusters", code: "ECONNRESET", message: "reset" }))).toBe(true);
    expect(isTransient(api(UnauthorizedError, 401))).toBe(false);
    expect(isTransient(new Error("x"))).toBe(false);
    expect(isNotFound(api(NotFoundError, 404))).toBe(true);
    expect(isConflict(api(ConflictError, 409))).toBe(true);
    expect(isConflict(api(NotFoundError, 404))).toBe(false);
  });

  it("statusOf reads the status of any error that has one", () => {
    expect(statusOf(api(UnauthorizedError, 401))).toBe(401);
    expect(statusOf(new Error("x"))).toBeUndefined();
    expect(statusOf(undefined)).toBeUndefined();
  });
});
