import { describe, expect, it } from "vitest";
import { ColumnPositions } from "../src/app/preview/column-widths.js";
import { type CellState, fitsIn, spillEnd, spillSourceBefore } from "../src/app/preview/spill.js";

/** Five columns of 100 px, a hidden one (4) among them. */
const columns = new ColumnPositions([100, 100, 100, 0, 100, 100]);

describe("text spilling over empty cells", () => {
  it("stays in its cell when it fits, the cell's padding and grid line counted", () => {
    expect(spillEnd({ column: 1, textWidth: 95, columns, limit: 6, isFree: () => true })).toBe(1);
    expect(fitsIn(95, 100)).toBe(true);
    expect(fitsIn(96, 100)).toBe(false);
  });

  it("runs on over as many free cells to its right as it needs", () => {
    expect(spillEnd({ column: 1, textWidth: 150, columns, limit: 6, isFree: () => true })).toBe(2);
    expect(spillEnd({ column: 1, textWidth: 250, columns, limit: 6, isFree: () => true })).toBe(3);
    // A hidden column is passed over on the way.
    expect(spillEnd({ column: 1, textWidth: 350, columns, limit: 6, isFree: () => true })).toBe(5);
  });

  it("is cut at the first cell that is not free, and at the limit", () => {
    expect(spillEnd({ column: 1, textWidth: 350, columns, limit: 6, isFree: (column) => column !== 3 })).toBe(2);
    expect(spillEnd({ column: 1, textWidth: 350, columns, limit: 2, isFree: () => true })).toBe(2);
    expect(spillEnd({ column: 6, textWidth: 350, columns, limit: 6, isFree: () => true })).toBe(6);
  });

  it("is found spilling into the view from a cell left of it, past free cells, not past others", () => {
    const row: CellState[] = ["text", "free", "free", "free", "free", "free"];
    const stateOf = (column: number) => row[column - 1] as CellState;
    expect(spillSourceBefore(4, 1, stateOf)).toBe(1);
    expect(spillSourceBefore(4, 2, stateOf)).toBeNull(); // the frozen columns are not looked into
    row[1] = "blocked";
    expect(spillSourceBefore(4, 1, stateOf)).toBeNull();
    row[2] = "text";
    expect(spillSourceBefore(4, 1, stateOf)).toBe(3);
    expect(spillSourceBefore(1, 1, stateOf)).toBeNull();
  });
});
