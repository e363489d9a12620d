import { describe, expect, it } from "vitest";
import { cellAlignment, cellText, columnLetters, parseCellReference } from "../src/app/preview/cell-text.js";

describe("what a cell shows", () => {
  it("shows a cell's text as the API gives it, booleans as TRUE and FALSE, nothing for an empty cell", () => {
    expect(cellText("=SUM(A1)")).toBe("=SUM(A1)");
    expect(cellText("$2,500.00")).toBe("$2,500.00");
    expect(cellText("31-Jan-26")).toBe("31-Jan-26");
    expect(cellText(0.1)).toBe("0.1");
    expect(cellText(-12)).toBe("-12");
    expect(cellText(true)).toBe("TRUE");
    expect(cellText(false)).toBe("FALSE");
    expect(cellText(null)).toBe("");
    expect(cellText("#DIV/0!")).toBe("#DIV/0!");
  });

  it("keeps a text's spaces and puts its lines side by side, as a cell that does not wrap shows them", () => {
    expect(cellText("  indented")).toBe("  indented");
    expect(cellText("first\nsecond\r\nthird")).toBe("first second third");
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
