import { describe, expect, it } from "vitest";
import {
  CellarError,
  MAX_STRUCTURE_OPERATIONS,
  operationJson,
  readStructureOperations,
  sheetNameProblem,
} from "../src/index.js";

const workbook = { csv: false, maxRows: 1_048_576, maxColumns: 16_384 } as const;
const sheets = [
  { name: "Data", rowCount: 10, columnCount: 3 },
  { name: "Q1 Notes", rowCount: 2, columnCount: 2 },
];

/** The field a refused request names, and its message. */
function refusal(operations: unknown, on = sheets, limits: Parameters<typeof readStructureOperations>[2] = workbook) {
  try {
    readStructureOperations(operations, on, limits);
  } catch (error) {
    if (!(error instanceof CellarError)) throw error;
    const detail = (error.details as { field: string; message: string }[])[0];
    return `${detail?.field}: ${detail?.message}`;
  }
  throw new Error("not refused");
}

describe("a change of structure's operations", () => {
  it("are read in order, each against what the ones before left", () => {
    expect(
      readStructureOperations(
        [
          { insert: "rows", sheet: "data", before: 2, count: 3 },
          { delete: "columns", sheet: "Data", from: "b", count: 1 },
          { add_sheet: "Summary", index: 0 },
          { rename_sheet: "Q1 Notes", to: "Notes" },
          { move_sheet: "Notes", to: 0 },
          { delete_sheet: "Summary" },
        ],
        sheets,
        workbook,
      ),
    ).toEqual([
      { kind: "insert_rows", sheet: "Data", at: 2, count: 3 },
      { kind: "delete_columns", sheet: "Data", at: 2, count: 1 },
      { kind: "add_sheet", name: "Summary", index: 0 },
      { kind: "rename_sheet", sheet: "Q1 Notes", to: "Notes" },
      { kind: "move_sheet", sheet: "Notes", to: 0 },
      { kind: "delete_sheet", sheet: "Summary" },
    ]);
  });

  it("are refused, naming the first that cannot be, by Excel's rules", () => {
    expect(refusal([{ rename_sheet: "Data", to: "Q1 Notes" }, { add_sheet: "x" }])).toMatch(
      /^operations\[0\]: .*already/,
    );
    expect(refusal([{ add_sheet: "A".repeat(32) }])).toMatch(/^operations\[0\]: .*1 to 31/);
    expect(refusal([{ add_sheet: "a/b" }])).toMatch(/^operations\[0\]/);
    expect(refusal([{ add_sheet: "'quoted'" }])).toMatch(/^operations\[0\]/);
    expect(refusal([{ delete_sheet: "Data" }, { delete_sheet: "Q1 Notes" }])).toMatch(
      /^operations\[1\]: .*at least one/,
    );
    expect(
      refusal([
        { rename_sheet: "Data", to: "New" },
        { insert: "rows", sheet: "Data", before: 1, count: 1 },
      ]),
    ).toMatch(/^operations\[1\]: no sheet is named "Data"/);
    expect(refusal([{ move_sheet: "Data", to: 2 }])).toMatch(/^operations\[0\]: to is a whole number from 0 to 1/);
    // Cells pushed past the sheet's last row or column.
    expect(refusal([{ insert: "rows", sheet: "Data", before: 5, count: 1_048_570 }])).toMatch(/past row 1048576/);
    expect(refusal([{ insert: "columns", sheet: "Data", before: "A", count: 16_382 }])).toMatch(/past column 16384/);
    // Past the cells there is nothing to push.
    expect(
      readStructureOperations([{ insert: "rows", sheet: "Data", before: 11, count: 1_048_000 }], sheets, workbook),
    ).toHaveLength(1);
    // A CSV's sheet does not change.
    expect(
      refusal([{ add_sheet: "More" }], [sheets[0] as (typeof sheets)[number]], { ...workbook, csv: true }),
    ).toMatch(/one sheet/);
    expect(refusal([{ unknown: 1 }])).toMatch(/^operations\[0\]: is one of/);
    expect(refusal("rows")).toMatch(/^operations: /);
  });

  it("are refused field by field: each operation's shape, names, numbers and columns", () => {
    expect(refusal([])).toMatch(/^operations: is required/);
    expect(refusal(new Array(MAX_STRUCTURE_OPERATIONS + 1).fill({ add_sheet: "x" }))).toMatch(
      new RegExp(`^operations: holds at most ${MAX_STRUCTURE_OPERATIONS}`),
    );
    expect(refusal([["insert"]])).toBe("operations[0]: is an object");
    expect(refusal([{ insert: "cells", sheet: "Data", before: 1, count: 1 }])).toBe(
      'operations[0]: insert is "rows" or "columns"',
    );
    expect(refusal([{ delete: "cells", sheet: "Data", from: 1, count: 1 }])).toBe(
      'operations[0]: delete is "rows" or "columns"',
    );
    expect(refusal([{ insert: "rows", sheet: 1, before: 1, count: 1 }])).toBe("operations[0]: sheet is a sheet's name");
    expect(refusal([{ insert: "rows", sheet: "Data", before: 1, count: 1, after: 2 }])).toBe(
      "operations[0]: after is not a field of this operation",
    );
    expect(refusal([{ insert: "rows", sheet: "Data", before: 0, count: 1 }])).toBe(
      "operations[0]: before is a whole number from 1 to 1048576",
    );
    expect(refusal([{ delete: "rows", sheet: "Data", from: 3, count: 1.5 }])).toBe(
      "operations[0]: count is a whole number from 1 to 1048574",
    );
    expect(refusal([{ insert: "columns", sheet: "Data", before: 3, count: 1 }])).toBe(
      "operations[0]: before is a column's letters (C, AB)",
    );
    expect(refusal([{ delete: "columns", sheet: "Data", from: "ZZZ", count: 1 }])).toBe(
      "operations[0]: from is past column 16384, the last a sheet has",
    );
    expect(refusal([{ add_sheet: 7 }])).toBe("operations[0]: add_sheet is a sheet's name");
    expect(refusal([{ add_sheet: "New", index: 3 }])).toBe("operations[0]: index is a whole number from 0 to 2");
    expect(refusal([{ rename_sheet: "Q1 Notes", to: "DATA" }])).toMatch(/already \(names compare case aside\)/);
  });

  it("keep each sheet's extent as the operations before left it", () => {
    // Rows deleted across the sheet's end leave it ending where they started.
    expect(
      readStructureOperations(
        [
          { delete: "rows", sheet: "Data", from: 4, count: 100 },
          { insert: "rows", sheet: "Data", before: 4, count: 1_048_573 },
        ],
        sheets,
        workbook,
      ),
    ).toHaveLength(2);
    // Inserted before the cells, rows push them: then there is no more room.
    expect(
      refusal([
        { insert: "rows", sheet: "Data", before: 1, count: 1_048_560 },
        { insert: "rows", sheet: "Data", before: 1, count: 10 },
      ]),
    ).toMatch(/^operations\[1\]: would push cells past row 1048576/);
    // A renamed sheet may be renamed back to its own name, in another case.
    expect(readStructureOperations([{ rename_sheet: "Data", to: "DATA" }], sheets, workbook)).toEqual([
      { kind: "rename_sheet", sheet: "Data", to: "DATA" },
    ]);
  });

  it("are written back as the API spells them", () => {
    const read = readStructureOperations(
      [
        { insert: "rows", sheet: "Data", before: 2, count: 3 },
        { insert: "columns", sheet: "Data", before: "AB", count: 1 },
        { delete: "rows", sheet: "Data", from: 1, count: 1 },
        { delete: "columns", sheet: "Data", from: "c", count: 2 },
        { add_sheet: "Summary" },
        { add_sheet: "First", index: 0 },
        { rename_sheet: "Q1 Notes", to: "Notes" },
        { move_sheet: "Notes", to: 0 },
        { delete_sheet: "Summary" },
      ],
      sheets,
      workbook,
    );
    expect(read.map(operationJson)).toEqual([
      { insert: "rows", sheet: "Data", before: 2, count: 3 },
      { insert: "columns", sheet: "Data", before: "AB", count: 1 },
      { delete: "rows", sheet: "Data", from: 1, count: 1 },
      { delete: "columns", sheet: "Data", from: "C", count: 2 },
      { add_sheet: "Summary" },
      { add_sheet: "First", index: 0 },
      { rename_sheet: "Q1 Notes", to: "Notes" },
      { move_sheet: "Notes", to: 0 },
      { delete_sheet: "Summary" },
    ]);
  });

  it("check sheet names as Excel does", () => {
    expect(sheetNameProblem("Budget 2026")).toBeNull();
    expect(sheetNameProblem("Données 'été' 📊")).toBeNull();
    for (const bad of ["", "a:b", "a\\b", "a?b", "a*b", "a[b", "a]b", "'a", "a'", "x".repeat(32)]) {
      expect(sheetNameProblem(bad)).not.toBeNull();
    }
  });
});
