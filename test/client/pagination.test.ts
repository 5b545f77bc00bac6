import { describe, expect, it } from "vitest";
import { isLastPage, listPageCount } from "../../src/client";
import type { ApiClusterList } from "@pulumi-cms/contract";

const page = (n: number, extra: Partial<ApiClusterList> = {}): ApiClusterList =>
  ({ items: Array.from({ length: n }, (_, i) => ({ id: `cls_${i}` })), ...extra }) as unknown as ApiClusterList;

describe("the last page of a listing", () => {
  it("is the one that reaches total", () => {
    expect(isLastPage(page(100, { total: 250, per_page: 100 }), 2)).toBe(false);
    expect(isLastPage(page(50, { total: 250, per_page: 100 }), 3)).toBe(true);
    expect(isLastPage(page(100, { total: 200, per_page: 100 }), 2)).toBe(true);
  });

  it("is a short or empty page when the service leaves total out", () => {
    expect(isLastPage(page(100), 1)).toBe(false);
    expect(isLastPage(page(99), 1)).toBe(true);
    expect(isLastPage(page(0), 4)).toBe(true);
  });

  it("measures shortness by the page size the service reports, else the size asked for", () => {
    expect(isLastPage(page(20, { per_page: 20 }), 1)).toBe(false);
    expect(isLastPage(page(20), 1, 50)).toBe(true);
  });
});

describe("the page count a first page tells", () => {
  it("comes from total and per_page, and is at least 1", () => {
    expect(listPageCount(page(100, { total: 250, per_page: 100 }))).toBe(3);
    expect(listPageCount(page(0, { total: 0, per_page: 100 }))).toBe(1);
  });

  it("is only this page when total is missing (a lower bound)", () => {
    expect(listPageCount(page(100))).toBe(1);
  });
});
