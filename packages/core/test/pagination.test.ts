import { describe, expect, it } from "vitest";
import { CellarError } from "../src/shared/errors.js";
import { pageLinks, toPage, toPageRequest } from "../src/shared/pagination.js";

describe("pagination", () => {
  it("defaults to page 1 of 25", () => {
    expect(toPageRequest({})).toEqual({ page: 1, perPage: 25, offset: 0 });
  });

  it("computes the offset from page and per_page", () => {
    expect(toPageRequest({ page: 3, perPage: 10 })).toEqual({ page: 3, perPage: 10, offset: 20 });
  });

  it("serves a per_page above 100 as 100", () => {
    expect(toPageRequest({ page: 2, perPage: 1000 })).toEqual({ page: 2, perPage: 100, offset: 100 });
  });

  it("accepts per_page of exactly 1 and 100", () => {
    expect(toPageRequest({ perPage: 1 }).perPage).toBe(1);
    expect(toPageRequest({ perPage: 100 }).perPage).toBe(100);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "2", null, 2 ** 60])(
    "refuses page=%s with a validation_error naming the field",
    (page) => {
      const error = catchError(() => toPageRequest({ page }));
      expect(error.code).toBe("validation_error");
      expect(error.details).toEqual([{ field: "page", message: "must be a whole number of at least 1" }]);
    },
  );

  it("reports both bad fields at once", () => {
    const error = catchError(() => toPageRequest({ page: 0, perPage: 0 }));
    expect(error.details?.map((d) => d.field)).toEqual(["page", "per_page"]);
  });

  it("counts total pages as ceil(total / per_page), 0 for nothing", () => {
    const request = toPageRequest({ perPage: 10 });
    expect(toPage(request, [], 0).totalPages).toBe(0);
    expect(toPage(request, [], 1).totalPages).toBe(1);
    expect(toPage(request, [], 10).totalPages).toBe(1);
    expect(toPage(request, [], 11).totalPages).toBe(2);
  });

  it("links first and last on every page, prev and next where they exist", () => {
    expect(pageLinks({ page: 1, totalPages: 0 })).toEqual({});
    expect(pageLinks({ page: 1, totalPages: 1 })).toEqual({ first: 1, last: 1 });
    expect(pageLinks({ page: 1, totalPages: 3 })).toEqual({ first: 1, last: 3, next: 2 });
    expect(pageLinks({ page: 2, totalPages: 3 })).toEqual({ first: 1, last: 3, prev: 1, next: 3 });
    expect(pageLinks({ page: 3, totalPages: 3 })).toEqual({ first: 1, last: 3, prev: 2 });
  });

  it("links a page past the end back to the last page", () => {
    expect(pageLinks({ page: 9, totalPages: 3 })).toEqual({ first: 1, last: 3, prev: 3 });
  });
});

function catchError(action: () => unknown): CellarError {
  try {
    action();
  } catch (error) {
    if (error instanceof CellarError) return error;
    throw error;
  }
  throw new Error("expected a CellarError");
}
