import { describe, expect, it } from "vitest";
import { FILE_SORTS, parseFileSort, toFileListRequest } from "../src/files/file-listing.js";
import { compareCodePoints, fileNameKey } from "../src/files/file-name-key.js";
import { CellarError } from "../src/shared/errors.js";

describe("a file name's key", () => {
  it.each([
    ["Budget.XLSX", "budget.xlsx"],
    ["ÄRGER", "ärger"],
    ["A\u0308RGER", "ärger"],
    ["Straße", "strasse"],
    ["STRASSE", "strasse"],
    ["\u1E9E", "ss"],
    ["ΟΔΟΣ", "οδοσ"],
    ["οδος", "οδοσ"],
    ["\uFB01le", "file"],
    ["\u212A", "k"],
    ["\u{1F4CA} Chart", "\u{1F4CA} chart"],
    ["broken \uD800", "broken \uFFFD"],
  ])("of %j is %j", (name, key) => {
    expect(fileNameKey(name)).toBe(key);
  });

  it("is its own key: folding twice changes nothing", () => {
    for (const name of ["ÄRGER", "Straße", "ΟΔΟΣ", "İstanbul", "ǅemal", "\u13A0", "ΐ"]) {
      expect(fileNameKey(fileNameKey(name))).toBe(fileNameKey(name));
    }
  });
});

describe("code point order", () => {
  it("puts a character above U+FFFF after U+E000–U+FFFF, as UTF-8 bytes do", () => {
    const astral = "\u{1F4CA}";
    const high = "\uFF41";
    expect(astral < high).toBe(true); // UTF-16 code units: D83D < FF41
    expect(compareCodePoints(astral, high)).toBeGreaterThan(0);
    expect(Buffer.compare(Buffer.from(astral), Buffer.from(high))).toBeGreaterThan(0);
  });

  it("agrees with UTF-8 byte order on a mixed list", () => {
    const words = ["b", "a", "ab", "", "\u00E9", "\uD7FF", "\uE000", "\uFFFF", "\u{10000}", "\u{1F4CA}x", "\u{1F4CA}"];
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareCodePoints)).toEqual(byBytes);
  });
});

describe("a listing request", () => {
  it("defaults to newest first, with no search and page 1 of 25", () => {
    expect(toFileListRequest({})).toEqual({
      page: { page: 1, perPage: 25, offset: 0 },
      nameContains: undefined,
      sort: { field: "createdAt", descending: true },
    });
  });

  it("reads each sort, ascending or with a leading - descending", () => {
    expect(FILE_SORTS.map((sort) => toFileListRequest({ sort }).sort)).toEqual([
      { field: "createdAt", descending: false },
      { field: "createdAt", descending: true },
      { field: "updatedAt", descending: false },
      { field: "updatedAt", descending: true },
      { field: "name", descending: false },
      { field: "name", descending: true },
      { field: "size", descending: false },
      { field: "size", descending: true },
    ]);
    expect(parseFileSort("-size")).toEqual({ field: "size", descending: true });
  });

  it("takes q of 1 to 100 characters, counting characters, not UTF-16 units", () => {
    expect(toFileListRequest({ q: "x" }).nameContains).toBe("x");
    expect(toFileListRequest({ q: "\u{1F4CA}".repeat(100) }).nameContains).toHaveLength(200);
    expect(toFileListRequest({ q: "  spaced  " }).nameContains).toBe("  spaced  ");
  });

  it.each([
    [{ q: "" }, "q", "must not be empty"],
    [{ q: "x".repeat(101) }, "q", "must be at most 100 characters"],
    [{ q: "tab\there" }, "q", "must not contain control characters"],
    [{ q: 42 }, "q", "must be a string"],
    [{ sort: "NAME" }, "sort", expect.stringContaining("must be one of 'created_at', '-created_at'")],
    [{ sort: "+name" }, "sort", expect.stringContaining("must be one of")],
    [{ sort: "id" }, "sort", expect.stringContaining("must be one of")],
    [{ sort: "" }, "sort", expect.stringContaining("must be one of")],
  ])("refuses %j with a validation_error on %s", (input, field, message) => {
    const error = catchError(() => toFileListRequest(input));
    expect(error.code).toBe("validation_error");
    expect(error.details).toEqual([{ field, message }]);
  });
});

function catchError(run: () => unknown): CellarError {
  try {
    run();
  } catch (error) {
    if (error instanceof CellarError) return error;
    throw error;
  }
  throw new Error("expected a CellarError");
}
