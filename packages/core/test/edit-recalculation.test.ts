import { describe, expect, it } from "vitest";
import type { CellGrid, CellRectangle, ReadableSheetIndex, SheetWrites } from "../src/index.js";
import { recalculateEdit, writesOverFormulas } from "../src/index.js";
import { summingEngine } from "./support/summing-engine.js";

/** Sheet1: A1:A3 hold 1, 2, 3; B1 = A1+A2, B2 = B1+A3, B3 = 7 (reads nothing). */
const index: ReadableSheetIndex = {
  readable: true,
  version: 1,
  sheets: [
    {
      index: 0,
      name: "Sheet1",
      rowCount: 3,
      columnCount: 2,
      headerRow: false,
      columnTypes: [],
      formulaLikeCells: 0,
    },
  ],
  checkpoints: [{ every: 256, offsets: [0], end: 0 }],
};
const stored = [
  [1, 3],
  [2, 6],
  [3, 7],
];
const kept = {
  formulas: [
    { sheet: 0, row: 1, column: 2, formula: "A1+A2" },
    { sheet: 0, row: 2, column: 2, formula: "B1+A3" },
    { sheet: 0, row: 3, column: 2, formula: "7" },
  ],
  unstored: [false, false, false],
  names: [],
  complete: true,
};
const read = async (_sheet: number, rectangle: CellRectangle): Promise<CellGrid> => {
  const rows = stored
    .slice(rectangle.firstRow - 1, rectangle.lastRow)
    .map((row) => row.slice(rectangle.firstColumn - 1, rectangle.lastColumn));
  return { values: rows, types: rows.map((row) => row.map(() => "number" as const)) };
};
const write = (row: number, column: number, value: number, formula?: string): SheetWrites[] => [
  {
    sheet: 0,
    writes: [
      {
        rectangle: { firstRow: row, lastRow: row, firstColumn: column, lastColumn: column },
        values: [[value]],
        ...(formula === undefined ? {} : { formulas: [[formula]] }),
      },
    ],
  },
];

describe("an edit's recalculation", () => {
  it("computes what reads the written cell, in order, and gives the graph the next edit starts from", async () => {
    const engine = summingEngine();
    const first = await recalculateEdit({
      engine,
      formulas: kept,
      index,
      sheets: write(1, 1, 10),
      read,
      field: "values",
    });
    expect(first.results.get(0)).toEqual([
      { row: 1, column: 2, value: 12 },
      { row: 2, column: 2, value: 15 },
    ]);
    expect(first.recomputed).toBe(2);
    // The next edit changes no formula: it starts from that graph and reads no formula again.
    expect(writesOverFormulas(first.next.graph, write(3, 1, 100))).toBe(false);
    const reads = engine.read;
    let readsSince = 0;
    engine.read = (...args) => {
      readsSince++;
      return reads.apply(engine, args);
    };
    const second = await recalculateEdit({
      engine,
      formulas: first.next,
      index,
      sheets: write(3, 1, 100),
      read,
      field: "values",
    });
    expect(second.results.get(0)).toEqual([{ row: 2, column: 2, value: 103 }]);
    expect(readsSince).toBe(0);
  });

  it("starts from the kept formulas when an edit writes a formula, or over one", async () => {
    const { graph } = (
      await recalculateEdit({
        engine: summingEngine(),
        formulas: kept,
        index,
        sheets: write(1, 1, 1),
        read,
        field: "values",
      })
    ).next;
    expect(writesOverFormulas(graph, write(3, 2, 5))).toBe(true);
    expect(writesOverFormulas(graph, write(3, 1, 5, "A1+A2"))).toBe(true);
    await expect(
      recalculateEdit({
        engine: summingEngine(),
        formulas: { graph, unstored: [false, false, false] },
        index,
        sheets: write(3, 2, 5),
        read,
        field: "values",
      }),
    ).rejects.toThrow(/kept beside the workbook/);
  });

  it("writes in the results kept for unstored formulas as they are, computing only what the edit changes", async () => {
    const engine = summingEngine();
    let reads = 0;
    const counted = async (sheet: number, rectangle: CellRectangle) => {
      reads++;
      return read(sheet, rectangle);
    };
    // The bytes hold no result for any of the three; the upload computed 3, 6 and 7.
    const unstoredKept = { ...kept, unstored: [true, true, true], results: [3, 6, 7] };
    const edit = await recalculateEdit({
      engine,
      formulas: unstoredKept,
      index,
      sheets: write(3, 1, 30),
      read: counted,
      field: "values",
    });
    // B2 reads A3, so it is computed (3 + 30); B1 and B3 are written as kept.
    expect(edit.results.get(0)).toEqual([
      { row: 1, column: 2, value: 3 },
      { row: 3, column: 2, value: 7 },
      { row: 2, column: 2, value: 33 },
    ]);
    expect(edit.recomputed).toBe(1);
    // An edit nothing reads computes nothing, and still writes every kept result in.
    reads = 0;
    const apart = await recalculateEdit({
      engine,
      formulas: unstoredKept,
      index,
      sheets: write(3, 3, 1),
      read: counted,
      field: "values",
    });
    expect(apart.recomputed).toBe(0);
    expect(reads).toBe(0);
    expect(apart.results.get(0)?.map((result) => result.value)).toEqual([3, 6, 7]);
    // Without kept results, every unstored formula is computed, as before.
    const without = await recalculateEdit({
      engine,
      formulas: { ...kept, unstored: [true, true, true] },
      index,
      sheets: write(3, 3, 1),
      read,
      field: "values",
    });
    expect(without.recomputed).toBe(3);
  });
});
