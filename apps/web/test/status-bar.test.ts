import { describe, expect, it } from "vitest";
import { formatSelectionStats, selectionStats } from "../src/app/preview/selection.js";
import { statValue } from "../src/app/preview/status-bar.js";

describe("a value as the status bar's figures count it", () => {
  it("reads a CSV's plain numbers as numbers", () => {
    expect(statValue("3", true)).toBe(3);
    expect(statValue(" -1.5 ", true)).toBe(-1.5);
    expect(statValue("+2e3", true)).toBe(2000);
    expect(statValue(".5", true)).toBe(0.5);
    expect(statValue("12.", true)).toBe(12);
  });

  it("leaves a CSV's other texts as text", () => {
    for (const text of ["", " ", "1,200", "$5", "12%", "1/31/2026", "0x10", "Infinity", "3 apples", "-"]) {
      expect(statValue(text, true)).toBe(text);
    }
  });

  it("leaves a workbook's values as they are: its text is text", () => {
    expect(statValue("3", false)).toBe("3");
    expect(statValue(3, false)).toBe(3);
    expect(statValue(true, true)).toBe(true);
    expect(statValue(null, true)).toBeNull();
  });

  it("makes a CSV's numbers add up, and a workbook's texts not", () => {
    const column = ["10", "2.5", "n/a", ""];
    expect(selectionStats(column.map((value) => statValue(value, true)))).toMatchObject({ sum: 12.5, numbers: 2 });
    expect(selectionStats(column.map((value) => statValue(value, false)))).toMatchObject({ numbers: 0 });
    expect(formatSelectionStats(selectionStats(column.map((value) => statValue(value, true))), "en-US")).toBe(
      "Sum 12.5 · Average 6.25 · Count 3",
    );
  });
});
