/** One error family: every error class of the package extends CmsError, with a stable code. */
import { describe, expect, it, vi } from "vitest";
import * as cms from "../../../src";
import {
  ApiError,
  ContractError,
  DeadlineError,
  InvalidIdError,
  NetworkError,
  NotFoundError,
  UnprovenOwnershipError,
} from "../../../src/client/errors";
import { ConnectionError } from "../../../src/connection";
import { ClusterInitError, ClusterLookupError, OperationError } from "../../../src/provider/errors";
import { WaitError } from "../../../src/provider/polling/waiter";
import { CmsError } from "../../../src/shared/errors/cms-error";
import { InvalidArgumentError } from "../../../src/shared/errors/invalid-argument-error";

const at = { method: "GET", path: "/v1/clusters/cls_1" };

describe("CmsError", () => {
  it.each([
    [new ApiError({ ...at, status: 500, code: "internal", message: "m" }), "ApiError", "internal"],
    [new NotFoundError({ ...at, status: 404, code: "not_found", message: "m" }), "NotFoundError", "not_found"],
    [new ContractError({ ...at, status: 200, message: "m", field: "id" }), "ContractError", "invalid_response"],
    [new NetworkError({ ...at, code: "ECONNRESET", message: "m" }), "NetworkError", "ECONNRESET"],
    [new DeadlineError({ ...at, wait: "w", waitMs: 2, remainingMs: 1, deadline: "create timeout" }), "DeadlineError", "deadline_exceeded"],
    [new UnprovenOwnershipError("web", [], "s"), "UnprovenOwnershipError", "unproven_ownership"],
    [new InvalidIdError("m", "cluster"), "InvalidIdError", "invalid_id"],
    [new ConnectionError("m"), "ConnectionError", "connection_not_configured"],
    [new OperationError("m"), "OperationError", "operation_failed"],
    [new ClusterLookupError("m", "cls_1"), "ClusterLookupError", "cluster_lookup_failed"],
    [new ClusterInitError("m", "cls_1", {}), "ClusterInitError", "cluster_not_ready"],
    [new WaitError("m", "timeout"), "WaitError", "wait_timeout"],
    [new InvalidArgumentError("m"), "InvalidArgumentError", "invalid_argument"],
  ])("%s is a CmsError named %s with code %s", (error, name, code) => {
    expect(error).toBeInstanceOf(CmsError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
  });

  it("is exported by the package, and instanceof still tells subclasses apart", () => {
    expect(cms.CmsError).toBe(CmsError);
    const e = new NotFoundError({ ...at, status: 404, code: "not_found", message: "m" });
    expect(e).toBeInstanceOf(ApiError);
    expect(e).not.toBeInstanceOf(NetworkError);
    expect(new Error("plain")).not.toBeInstanceOf(CmsError);
    expect("not_found").not.toBeInstanceOf(CmsError);
  });

  it("recognises an error of another copy of the package loaded in the process", async () => {
    vi.resetModules();
    const other = await import("../../../src/client/errors/index.js");
    expect(other.CmsError).not.toBe(CmsError);
    const e = new other.NotFoundError({ ...at, status: 404, code: "not_found", message: "m" });
    expect(e).not.toBeInstanceOf(NotFoundError);
    expect(e).toBeInstanceOf(CmsError);
  });
});
