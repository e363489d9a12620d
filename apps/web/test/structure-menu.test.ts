import { describe, expect, it } from "vitest";
import type { Bounds } from "../src/app/preview/selection.js";
import {
  columnsName,
  rowsName,
  structureDone,
  structureItems,
  structureStep,
} from "../src/app/preview/structure-menu.js";

const bounds = (top: number, left: number, bottom: number, right: number): Bounds => ({ top, left, bottom, right });

describe("the rows and columns menu", () => {
  it("offers a block of cells (rows 3 to 5, columns C:D) the rows' and the columns' items, as many as it covers", () => {
    const items = structureItems("Data", "cells", bounds(3, 3, 5, 4));
    expect(items.map((item) => [item.label, item.operation, item.danger ?? false])).toEqual([
      ["Insert 3 rows above", { insert: "rows", sheet: "Data", before: 3, count: 3 }, false],
      ["Insert 3 rows below", { insert: "rows", sheet: "Data", before: 6, count: 3 }, false],
      ["Insert 2 columns left", { insert: "columns", sheet: "Data", before: "C", count: 2 }, false],
      ["Insert 2 columns right", { insert: "columns", sheet: "Data", before: "E", count: 2 }, false],
      ["Delete rows 3 to 5", { delete: "rows", sheet: "Data", from: 3, count: 3 }, true],
      ["Delete columns C to D", { delete: "columns", sheet: "Data", from: "C", count: 2 }, true],
    ]);
  });

  it("offers whole rows only the rows' items, one row named in the singular", () => {
    const items = structureItems("Q1 Budget", "rows", bounds(7, 1, 7, 16_384));
    expect(items.map((item) => item.label)).toEqual(["Insert row above", "Insert row below", "Delete row 7"]);
    expect(items.map((item) => item.operation)).toEqual([
      { insert: "rows", sheet: "Q1 Budget", before: 7, count: 1 },
      { insert: "rows", sheet: "Q1 Budget", before: 8, count: 1 },
      { delete: "rows", sheet: "Q1 Budget", from: 7, count: 1 },
    ]);
  });

  it("offers whole columns only the columns' items, past Z in letters", () => {
    const items = structureItems("Data", "columns", bounds(1, 26, 1_048_576, 27));
    expect(items.map((item) => [item.label, item.operation])).toEqual([
      ["Insert 2 columns left", { insert: "columns", sheet: "Data", before: "Z", count: 2 }],
      ["Insert 2 columns right", { insert: "columns", sheet: "Data", before: "AB", count: 2 }],
      ["Delete columns Z to AA", { delete: "columns", sheet: "Data", from: "Z", count: 2 }],
    ]);
    expect(structureItems("Data", "columns", bounds(1, 2, 1_048_576, 2)).map((item) => item.label)).toEqual([
      "Insert column left",
      "Insert column right",
      "Delete column B",
    ]);
  });

  it("offers nothing for the whole sheet", () => {
    expect(structureItems("Data", "all", bounds(1, 1, 1_048_576, 16_384))).toEqual([]);
  });

  it("names the rows and columns a block covers", () => {
    expect(rowsName(bounds(3, 1, 3, 4))).toBe("Row 3");
    expect(rowsName(bounds(3, 1, 5, 4))).toBe("Rows 3 to 5");
    expect(columnsName(bounds(1, 2, 9, 2))).toBe("Column B");
    expect(columnsName(bounds(1, 2, 9, 28))).toBe("Columns B to AB");
  });
});

describe("what a change of structure says it did", () => {
  it("says each operation the menu and the sheet tabs send", () => {
    expect(structureDone({ insert: "rows", sheet: "Data", before: 3, count: 1 })).toBe("Inserted a row at row 3.");
    expect(structureDone({ insert: "rows", sheet: "Data", before: 3, count: 2 })).toBe("Inserted 2 rows at row 3.");
    expect(structureDone({ insert: "columns", sheet: "Data", before: "E", count: 1 })).toBe(
      "Inserted a column at column E.",
    );
    expect(structureDone({ insert: "columns", sheet: "Data", before: "E", count: 3 })).toBe(
      "Inserted 3 columns at column E.",
    );
    expect(structureDone({ delete: "rows", sheet: "Data", from: 3, count: 3 })).toBe("Deleted rows 3 to 5.");
    expect(structureDone({ delete: "rows", sheet: "Data", from: 3, count: 1 })).toBe("Deleted row 3.");
    expect(structureDone({ delete: "columns", sheet: "Data", from: "C", count: 2 })).toBe("Deleted columns C to D.");
    expect(structureDone({ delete: "columns", sheet: "Data", from: "Z", count: 1 })).toBe("Deleted column Z.");
    expect(structureDone({ add_sheet: "Sheet4" })).toBe("Added the sheet Sheet4.");
    expect(structureDone({ rename_sheet: "Sheet1", to: "Budget" })).toBe("Renamed the sheet Sheet1 to Budget.");
    expect(structureDone({ move_sheet: "Budget", to: 2 })).toBe("Moved the sheet Budget.");
    expect(structureDone({ delete_sheet: "Budget" })).toBe("Deleted the sheet Budget.");
  });

  it("offers no insert below the sheet's last row or right of its last column", () => {
    const lastRow = structureItems("Data", "rows", bounds(1_048_576, 1, 1_048_576, 16_384)).map((item) => item.label);
    expect(lastRow).toEqual(["Insert row above", "Delete row 1048576"]);
    const lastColumn = structureItems("Data", "columns", bounds(1, 16_384, 1_048_576, 16_384)).map(
      (item) => item.label,
    );
    expect(lastColumn).toEqual(["Insert column left", "Delete column XFD"]);
  });

  it("names a change of structure after a colon for an undo or a redo: `Undid: inserted a row at row 3.`", () => {
    expect(structureStep({ insert: "rows", sheet: "Data", before: 3, count: 1 })).toBe("inserted a row at row 3.");
    expect(structureStep({ delete: "columns", sheet: "Data", from: "B", count: 2 })).toBe("deleted columns B to C.");
    expect(structureStep({ add_sheet: "Notes" })).toBe("added the sheet Notes.");
  });
});
