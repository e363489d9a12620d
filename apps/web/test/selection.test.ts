import { describe, expect, it } from "vitest";
import { MergedAreas } from "../src/app/preview/merged-areas.js";
import {
  coverMergedAreas,
  dataBounds,
  dataEdge,
  extendBy,
  extendTo,
  extendToColumn,
  extendToDataEdge,
  extendToRow,
  formatFigure,
  formatSelectionStats,
  isSingleCell,
  moveToDataEdge,
  type Selection,
  SHEET_COLUMNS,
  SHEET_ROWS,
  selectAll,
  selectCell,
  selectColumn,
  selectionBounds,
  selectionContains,
  selectionStats,
  selectionText,
  selectRow,
} from "../src/app/preview/selection.js";

const cell = (row: number, column: number) => ({ row, column });

/** A sheet's data as the grid would know it: the cells listed (`B2`-style, as row:column pairs) hold values. */
function dataAt(...cells: [number, number][]) {
  const filled = new Set(cells.map(([row, column]) => `${row}:${column}`));
  return (row: number, column: number) => filled.has(`${row}:${column}`);
}

describe("selecting with the mouse", () => {
  it("selects one cell on a click, and the block to another on a shift+click", () => {
    const one = selectCell(cell(2, 2));
    expect(one).toEqual({ kind: "cells", anchor: cell(2, 2), focus: cell(2, 2) });
    expect(isSingleCell(one)).toBe(true);
    const block = extendTo(one, cell(4, 1));
    expect(block).toEqual({ kind: "cells", anchor: cell(2, 2), focus: cell(4, 1) });
    expect(isSingleCell(block)).toBe(false);
    expect(selectionBounds(block)).toEqual({ top: 2, left: 1, bottom: 4, right: 2 });
    expect(selectionText(block)).toBe("A2:B4");
  });

  it("keeps a click on the sheet", () => {
    expect(selectCell(cell(0, 20_000)).anchor).toEqual(cell(1, SHEET_COLUMNS));
    expect(extendTo(selectCell(cell(5, 5)), cell(2_000_000, -3)).focus).toEqual(cell(SHEET_ROWS, 1));
    expect(selectCell(cell(50, 50), { rows: 10, columns: 10 }).anchor).toEqual(cell(10, 10));
  });

  it("selects whole rows from the row headers, a shift+click on a cell growing them by rows", () => {
    const row = selectRow(3);
    expect(selectionText(row)).toBe("3:3");
    expect(selectionBounds(row)).toEqual({ top: 3, left: 1, bottom: 3, right: SHEET_COLUMNS });
    const rows = extendToRow(row, 5);
    expect(selectionText(rows)).toBe("3:5");
    expect(selectionText(extendTo(rows, cell(1, 7)))).toBe("1:3");
    // From a block of cells, a shift+click on a row header takes the rows from the anchor's.
    expect(selectionText(extendToRow(selectCell(cell(6, 2)), 4))).toBe("4:6");
  });

  it("selects whole columns from the column headers", () => {
    const column = selectColumn(2);
    expect(selectionText(column)).toBe("B:B");
    expect(selectionBounds(column)).toEqual({ top: 1, left: 2, bottom: SHEET_ROWS, right: 2 });
    expect(selectionText(extendToColumn(column, 4))).toBe("B:D");
    expect(selectionText(extendTo(extendToColumn(column, 4), cell(9, 28)))).toBe("B:AB");
    expect(selectionText(extendToColumn(selectCell(cell(6, 3)), 1))).toBe("A:C");
  });
});

describe("selecting with the keyboard", () => {
  it("grows the selection by a cell on shift+arrow, moving the far corner, and stops at the sheet's edge", () => {
    let selection = selectCell(cell(2, 2));
    selection = extendBy(selection, "down");
    selection = extendBy(selection, "right");
    expect(selectionText(selection)).toBe("B2:C3");
    selection = extendBy(extendBy(extendBy(selection, "up"), "up"), "up");
    // The focus passed the anchor: the block is now above it.
    expect(selectionText(selection)).toBe("B1:C2");
    expect(selection.anchor).toEqual(cell(2, 2));
    expect(extendBy(selectCell(cell(1, 1)), "left")).toEqual(selectCell(cell(1, 1)));
  });

  it("grows whole rows only up and down and whole columns only sideways", () => {
    const rows = selectRow(3);
    expect(selectionText(extendBy(rows, "down"))).toBe("3:4");
    expect(extendBy(rows, "right")).toBe(rows);
    const columns = selectColumn(3);
    expect(selectionText(extendBy(columns, "left"))).toBe("B:C");
    expect(extendBy(columns, "down")).toBe(columns);
  });
});

describe("jumping to the data's edge (Ctrl+arrow)", () => {
  // Column B: B2:B5 filled, B6:B8 empty, B9:B10 filled; the data reaches row 10.
  const hasData = dataAt([2, 2], [3, 2], [4, 2], [5, 2], [9, 2], [10, 2]);
  const extent = { rows: 10, columns: 5 };

  it("goes to the last cell of a run from a cell with data", () => {
    expect(dataEdge(cell(2, 2), "down", hasData, extent)).toEqual(cell(5, 2));
    expect(dataEdge(cell(4, 2), "up", hasData, extent)).toEqual(cell(2, 2));
  });

  it("goes to the next cell with data from the last of a run, or from an empty cell (the start of the run, as Excel does)", () => {
    expect(dataEdge(cell(5, 2), "down", hasData, extent)).toEqual(cell(9, 2));
    expect(dataEdge(cell(1, 2), "down", hasData, extent)).toEqual(cell(2, 2));
    expect(dataEdge(cell(7, 2), "up", hasData, extent)).toEqual(cell(5, 2));
    expect(dataEdge(cell(9, 2), "up", hasData, extent)).toEqual(cell(5, 2));
  });

  it("goes to the sheet's edge when no data is left that way, and stays on it", () => {
    expect(dataEdge(cell(10, 2), "down", hasData, extent)).toEqual(cell(SHEET_ROWS, 2));
    expect(dataEdge(cell(1, 2), "up", hasData, extent)).toEqual(cell(1, 2));
    expect(dataEdge(cell(3, 2), "right", hasData, extent)).toEqual(cell(3, SHEET_COLUMNS));
    expect(dataEdge(cell(3, 2), "left", hasData, extent)).toEqual(cell(3, 1));
    expect(dataEdge(cell(SHEET_ROWS, 2), "down", hasData, extent)).toEqual(cell(SHEET_ROWS, 2));
    // The grid's own last row, when it offers fewer than a workbook's.
    expect(dataEdge(cell(10, 2), "down", hasData, extent, { rows: 11, columns: 6 })).toEqual(cell(11, 2));
  });

  it("asks about no cell past the data's extent, so a jump from a million rows down is quick", () => {
    const asked: number[] = [];
    const counting = (row: number, column: number) => {
      asked.push(row);
      return hasData(row, column);
    };
    expect(dataEdge(cell(SHEET_ROWS, 2), "up", counting, extent)).toEqual(cell(10, 2));
    expect(dataEdge(cell(10, 2), "down", counting, extent)).toEqual(cell(SHEET_ROWS, 2));
    expect(Math.max(...asked)).toBeLessThanOrEqual(10);
    expect(asked.length).toBeLessThan(10);
  });

  it("moves the cell alone on Ctrl+arrow, and grows the selection from its far corner on Ctrl+shift+arrow", () => {
    const block = extendTo(selectCell(cell(2, 2)), cell(3, 3));
    expect(moveToDataEdge(block, "down", hasData, extent)).toEqual(selectCell(cell(5, 2)));
    const grown = extendToDataEdge(block, "down", dataAt([3, 3], [4, 3], [8, 3]), extent);
    expect(grown.anchor).toEqual(cell(2, 2));
    expect(selectionText(grown)).toBe("B2:C4");
    // Whole rows grow by the data in their anchor's column (A, for a row header's click).
    expect(selectionText(extendToDataEdge(selectRow(2), "down", dataAt([2, 1], [3, 1]), extent))).toBe("2:3");
    expect(extendToDataEdge(selectRow(2), "right", hasData, extent)).toEqual(selectRow(2));
  });
});

describe("selecting everything (Ctrl+A)", () => {
  const extent = { rows: 20, columns: 4 };

  it("selects the data's block first, then the whole sheet", () => {
    const data = selectAll(selectCell(cell(5, 2)), extent);
    expect(selectionText(data)).toBe("A1:D20");
    const all = selectAll(data, extent);
    expect(all.kind).toBe("all");
    expect(selectionText(all)).toBe("1:1048576");
    expect(selectionBounds(all)).toEqual({ top: 1, left: 1, bottom: SHEET_ROWS, right: SHEET_COLUMNS });
    expect(selectAll(all, extent)).toEqual(all);
  });

  it("selects the whole sheet at once when it holds no data", () => {
    expect(selectAll(selectCell(cell(1, 1)), { rows: 0, columns: 0 }).kind).toBe("all");
  });

  it("turns into a block from A1 on a shift+click", () => {
    expect(selectionText(extendTo(selectAll(selectAll(selectCell(cell(1, 1)), extent), extent), cell(3, 3)))).toBe(
      "A1:C3",
    );
  });
});

describe("a selection's cells", () => {
  it("gives the part that can hold data, for the status bar and a copy", () => {
    const extent = { rows: 100, columns: 6 };
    expect(dataBounds(selectColumn(2), extent)).toEqual({ top: 1, left: 2, bottom: 100, right: 2 });
    expect(dataBounds(selectRow(7), extent)).toEqual({ top: 7, left: 1, bottom: 7, right: 6 });
    expect(dataBounds(selectAll(selectAll(selectCell(cell(1, 1)), extent), extent), extent)).toEqual({
      top: 1,
      left: 1,
      bottom: 100,
      right: 6,
    });
    expect(dataBounds(extendTo(selectCell(cell(2, 2)), cell(4, 3)), extent)).toEqual({
      top: 2,
      left: 2,
      bottom: 4,
      right: 3,
    });
    expect(dataBounds(selectRow(101), extent)).toBeNull();
    expect(dataBounds(selectColumn(7), extent)).toBeNull();
  });

  it("says which cells are in it", () => {
    const block: Selection = extendTo(selectCell(cell(4, 3)), cell(2, 2));
    expect(selectionContains(block, cell(3, 3))).toBe(true);
    expect(selectionContains(block, cell(4, 4))).toBe(false);
    expect(selectionContains(selectRow(3), cell(3, SHEET_COLUMNS))).toBe(true);
    expect(selectionContains(selectColumn(3), cell(2, 4))).toBe(false);
  });

  it("grows to hold whole every merged area it reaches into, and the areas those reach", () => {
    const areas = new MergedAreas(["C3:D4", "D5:F5", "H1:H2"]);
    const touching = (top: number, bottom: number, left: number, right: number) =>
      areas.touching(top, bottom, left, right);
    // B2:C3 cuts C3:D4.
    expect(coverMergedAreas({ top: 2, left: 2, bottom: 3, right: 3 }, touching)).toEqual({
      top: 2,
      left: 2,
      bottom: 4,
      right: 4,
    });
    // B2:C5 cuts C3:D4, and grown to column D it cuts D5:F5.
    expect(coverMergedAreas({ top: 2, left: 2, bottom: 5, right: 3 }, touching)).toEqual({
      top: 2,
      left: 2,
      bottom: 5,
      right: 6,
    });
    expect(coverMergedAreas({ top: 1, left: 1, bottom: 1, right: 1 }, touching)).toEqual({
      top: 1,
      left: 1,
      bottom: 1,
      right: 1,
    });
  });
});

describe("the status bar's figures", () => {
  it("adds up the numbers and counts the cells with a value, as Excel's status bar does", () => {
    const stats = selectionStats([2, "apples", 4, null, true, "", 6]);
    expect(stats).toEqual({ count: 5, numbers: 3, sum: 12, average: 4 });
    expect(formatSelectionStats(stats, "en-US")).toBe("Sum 12 · Average 4 · Count 5");
  });

  it("shows only the count without numbers, and nothing without values", () => {
    const words = selectionStats(["a", "b", false]);
    expect(words).toEqual({ count: 3, numbers: 0 });
    expect(formatSelectionStats(words, "en-US")).toBe("Count 3");
    expect(formatSelectionStats(selectionStats([null, "", null]), "en-US")).toBe("");
  });

  it("adds up without drifting, and reads any iterable (the grid's windows, cell by cell)", () => {
    expect(selectionStats([1e16, 1, -1e16]).sum).toBe(1);
    function* tenths() {
      for (let index = 0; index < 10; index++) yield 0.1;
    }
    expect(selectionStats(tenths()).sum).toBe(1);
  });

  it("writes figures in the reader's locale, at most 10 significant digits, whole numbers whole", () => {
    expect(formatFigure(1 / 3, "en-US")).toBe("0.3333333333");
    expect(formatFigure(1234567.891, "en-US")).toBe("1,234,567.891");
    expect(formatFigure(12_345_678_901, "en-US")).toBe("12,345,678,901");
    expect(formatFigure(0.1 + 0.2, "en-US")).toBe("0.3");
    expect(formatFigure(-0, "en-US")).toBe("0");
    expect(formatFigure(1234.5, "de-DE")).toBe("1.234,5");
    expect(formatSelectionStats(selectionStats([1000, 2000.5]), "de-DE")).toBe(
      "Sum 3.000,5 · Average 1.500,25 · Count 2",
    );
  });
});
