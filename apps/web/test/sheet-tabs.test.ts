// @vitest-environment happy-dom
// (sheet-tabs.tsx imports the app's session, which reads localStorage as it loads.)
import type { components } from "@cellar/client";
import { describe, expect, it } from "vitest";
import { newSheetName, sheetNameProblem } from "../src/app/preview/sheet-tabs.js";

type Sheet = components["schemas"]["Sheet"];

/** Sheets by name: all the tabs' helpers read of them. */
const sheets = (...names: string[]) => names.map((name, index) => ({ index, name }) as Sheet);

describe("a sheet's new name", () => {
  const book = sheets("Sheet1", "Q1 Budget");

  it("is refused as Excel refuses it: empty, over 31 characters, : \\ / ? * [ ], or a ' at either end", () => {
    expect(sheetNameProblem("", book)).toBe("A sheet needs a name.");
    expect(sheetNameProblem("x".repeat(31), book)).toBeNull();
    expect(sheetNameProblem("x".repeat(32), book)).toBe("A sheet's name is at most 31 characters.");
    for (const name of ["Q1:Q2", "a\\b", "Q1/Q2", "Why?", "All*", "[Draft]", "Draft]"]) {
      expect(sheetNameProblem(name, book)).toBe("A sheet's name cannot hold : \\ / ? * [ or ].");
    }
    expect(sheetNameProblem("'Draft", book)).toBe("A sheet's name cannot start or end with '.");
    expect(sheetNameProblem("Draft'", book)).toBe("A sheet's name cannot start or end with '.");
    expect(sheetNameProblem("It's mine", book)).toBeNull();
    expect(sheetNameProblem("Q2 (draft) – €, #1!", book)).toBeNull();
  });

  it("is refused when another sheet has it, whatever the case", () => {
    expect(sheetNameProblem("Sheet1", book)).toBe("There is already a sheet named Sheet1.");
    expect(sheetNameProblem("q1 budget", book)).toBe("There is already a sheet named q1 budget.");
    expect(sheetNameProblem("Sheet2", book)).toBeNull();
  });

  it("may be the renamed sheet's own name in another case", () => {
    expect(sheetNameProblem("SHEET1", book, "Sheet1")).toBeNull();
    expect(sheetNameProblem("Q1 Budget", book, "Sheet1")).toBe("There is already a sheet named Q1 Budget.");
  });
});

describe("an added sheet's name", () => {
  it("is Sheet and the number after the sheets there are", () => {
    expect(newSheetName(sheets("Sheet1"))).toBe("Sheet2");
    expect(newSheetName(sheets("Sheet1", "Sheet2", "Sheet3"))).toBe("Sheet4");
    expect(newSheetName(sheets("Budget", "Forecast"))).toBe("Sheet3");
  });

  it("skips a number taken, whatever the case", () => {
    expect(newSheetName(sheets("Sheet2"))).toBe("Sheet3");
    expect(newSheetName(sheets("Data", "sheet3", "SHEET4"))).toBe("Sheet5");
  });
});
