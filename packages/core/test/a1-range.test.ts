import { describe, expect, it } from "vitest";
import { isCellarError } from "../src/shared/errors.js";
import {
  columnLetters,
  columnNumber,
  formatA1Range,
  MAX_COLUMNS,
  parseA1Range,
  quoteSheetName,
} from "../src/sheets/a1-range.js";

describe("A1 ranges", () => {
  it.each([
    ["B2:D10", { sheet: null, firstRow: 2, lastRow: 10, firstColumn: 2, lastColumn: 4 }],
    ["'Q1 Budget'!A1:Z100", { sheet: "Q1 Budget", firstRow: 1, lastRow: 100, firstColumn: 1, lastColumn: 26 }],
    ["Sheet2!A:C", { sheet: "Sheet2", firstRow: 1, lastRow: null, firstColumn: 1, lastColumn: 3 }],
    ["3:5", { sheet: null, firstRow: 3, lastRow: 5, firstColumn: 1, lastColumn: null }],
    ["C7", { sheet: null, firstRow: 7, lastRow: 7, firstColumn: 3, lastColumn: 3 }],
    ["A2:C", { sheet: null, firstRow: 2, lastRow: null, firstColumn: 1, lastColumn: 3 }],
    ["D10:B2", { sheet: null, firstRow: 2, lastRow: 10, firstColumn: 2, lastColumn: 4 }],
    ["$A$1:$b$2", { sheet: null, firstRow: 1, lastRow: 2, firstColumn: 1, lastColumn: 2 }],
    ["'It''s ''here'''!A1", { sheet: "It's 'here'", firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 }],
    [
      "'a!b:c'!XFD1048576",
      { sheet: "a!b:c", firstRow: 1_048_576, lastRow: 1_048_576, firstColumn: 16_384, lastColumn: 16_384 },
    ],
    ["Données!A1:B2", { sheet: "Données", firstRow: 1, lastRow: 2, firstColumn: 1, lastColumn: 2 }],
    ["A1000001:J1000100", { sheet: null, firstRow: 1_000_001, lastRow: 1_000_100, firstColumn: 1, lastColumn: 10 }],
  ])("reads %s", (text, expected) => {
    expect(parseA1Range(text)).toEqual(expected);
  });

  it.each([
    "",
    "A",
    "7",
    "A0",
    "XFE1",
    "A1:B2:C3",
    "A2:3",
    "C:A2",
    "'Unclosed!A1",
    "''!A1",
    "'Sheet'A1",
    "Two Words!A1",
    "Sheet!",
    "A1 B2",
    "AAAA1",
    "A99999999999",
    `${"x".repeat(400)}!A1`,
  ])("refuses %j with a validation error on the field", (text) => {
    let thrown: unknown;
    try {
      parseA1Range(text, "range");
    } catch (error) {
      thrown = error;
    }
    expect(isCellarError(thrown, "validation_error")).toBe(true);
    expect((thrown as { details: { field: string }[] }).details[0]?.field).toBe("range");
  });

  it("converts column letters and numbers both ways, up to XFD", () => {
    expect([columnNumber("A"), columnNumber("z"), columnNumber("AA"), columnNumber("XFD")]).toEqual([
      1, 26, 27, 16_384,
    ]);
    for (let column = 1; column <= MAX_COLUMNS; column++) expect(columnNumber(columnLetters(column))).toBe(column);
  });

  it("quotes sheet names only where a bare one could be misread", () => {
    expect(quoteSheetName("Sheet1")).toBe("Sheet1");
    expect(quoteSheetName("Q1 Budget")).toBe("'Q1 Budget'");
    expect(quoteSheetName("It's")).toBe("'It''s'");
    expect(quoteSheetName("A1")).toBe("'A1'");
    expect(quoteSheetName("R1C1")).toBe("'R1C1'");
    expect(quoteSheetName("2024")).toBe("'2024'");
    expect(quoteSheetName("__proto__")).toBe("__proto__");
  });

  it("writes a range that reads back as itself", () => {
    const range = { sheet: "Q1 'Budget'", firstRow: 2, lastRow: 10, firstColumn: 2, lastColumn: 30 };
    const text = formatA1Range(range);
    expect(text).toBe("'Q1 ''Budget'''!B2:AD10");
    expect(parseA1Range(text)).toEqual(range);
    expect(formatA1Range({ sheet: "S", firstRow: 3, lastRow: 3, firstColumn: 1, lastColumn: 1 })).toBe("S!A3");
    for (const open of ["S!A:C", "S!3:5", "S!A2:C", "S!B:B"])
      expect(formatA1Range({ ...parseA1Range(open), sheet: "S" })).toBe(open);
  });
});
