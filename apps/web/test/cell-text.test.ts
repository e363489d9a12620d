import { describe, expect, it } from "vitest";
import { cellAlignment, cellText, columnLetters, parseCellReference } from "../src/app/preview/cell-text.js";

describe("what a cell shows", () => {
  it("shows text, numbers and booleans as a spreadsheet does, and nothing for an empty cell", () => {
    expect(cellText("=SUM(A1)", "string")).toBe("=SUM(A1)");
    expect(cellText(0.1, "number")).toBe("0.1");
    expect(cellText(-12, "number")).toBe("-12");
    expect(cellText(true, "boolean")).toBe("TRUE");
    expect(cellText(false, "boolean")).toBe("FALSE");
    expect(cellText(null, null)).toBe("");
    expect(cellText("#DIV/0!", "error")).toBe("#DIV/0!");
  });

  it("shows dates as dates in the reader's locale, not as the API's ISO text", () => {
    const expected = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" }).format(
      new Date(Date.UTC(2026, 0, 31)),
    );
    expect(cellText("2026-01-31", "date")).toBe(expected);
    expect(cellText("2026-01-31", "date")).not.toBe("2026-01-31");
    expect(cellText("2026-01-31T13:45:00", "date")).toContain(expected);
    // A time of day, and the 1900 system's day that never was, read as the API wrote them.
    expect(cellText("13:45:00", "date")).toBe("13:45:00");
    expect(cellText("1900-02-29", "date")).toBe("1900-02-29");
    // A CSV's text that looks like a date stays the file's text.
    expect(cellText("2026-01-31", "string")).toBe("2026-01-31");
  });

  it("lines numbers and dates up right, booleans and errors centred, text left; a CSV by its column's guess", () => {
    expect(cellAlignment("number", null)).toBe("end");
    expect(cellAlignment("date", null)).toBe("end");
    expect(cellAlignment("boolean", null)).toBe("center");
    expect(cellAlignment("error", null)).toBe("center");
    expect(cellAlignment("string", null)).toBe("start");
    expect(cellAlignment("string", "number")).toBe("end");
    expect(cellAlignment(null, null)).toBe("start");
  });

  it("names columns by letters, A to XFD", () => {
    expect([1, 26, 27, 52, 702, 703, 16_384].map(columnLetters)).toEqual(["A", "Z", "AA", "AZ", "ZZ", "AAA", "XFD"]);
  });

  it("reads a cell reference or a row number typed into Go to", () => {
    expect(parseCellReference("B12")).toEqual({ row: 12, column: 2 });
    expect(parseCellReference(" $aa$3 ")).toEqual({ row: 3, column: 27 });
    expect(parseCellReference("999999")).toEqual({ row: 999_999, column: 1 });
    expect(parseCellReference("XFD1048576")).toEqual({ row: 1_048_576, column: 16_384 });
    expect(parseCellReference("A0")).toBeNull();
    expect(parseCellReference("Sheet1!A1")).toBeNull();
    expect(parseCellReference("")).toBeNull();
  });
});
