import type { ColumnPositions } from "./column-widths.js";

/**
 * A cell's room for text, in px, is its width less this: 2 px of padding each side and the
 * 1 px grid line, the 5 px spreadsheet programs allow in a column (ECMA-376 §18.3.1.13),
 * so a column the author made to fit some text fits it here too. grid.css pads cells so.
 */
export const CELL_INSET = 5;

/** How far to look left of the view for text spilling into it. */
const LOOK_BACK_COLUMNS = 64;

/**
 * The last column a left-aligned text reaches, as spreadsheet programs draw it: text wider
 * than its cell runs on over the empty cells to its right and is cut at the first cell
 * that is not free (one with a value, in a merged area, not loaded yet) or at `limit`.
 */
export function spillEnd(options: {
  readonly column: number;
  readonly textWidth: number;
  readonly columns: ColumnPositions;
  /** The last column the text may reach: the sheet's, or the frozen columns' last. */
  readonly limit: number;
  readonly isFree: (column: number) => boolean;
}): number {
  const { column, textWidth, columns, limit, isFree } = options;
  const needed = textWidth + CELL_INSET;
  let end = column;
  let room = columns.width(column);
  while (room < needed && end < limit && isFree(end + 1)) {
    end++;
    room += columns.width(end);
  }
  return end;
}

/** What a cell is to text spilling past it. */
export type CellState = "free" | "text" | "blocked";

/**
 * The column of the cell, left of `column` and not left of `lowest`, whose text may spill
 * into `column`: the first that is not free, looking left, when it holds left-aligned text
 * (`"text"`). Null when there is none (a number, a merged area, a block not loaded yet).
 */
export function spillSourceBefore(
  column: number,
  lowest: number,
  stateOf: (column: number) => CellState,
): number | null {
  for (let candidate = column - 1; candidate >= lowest && column - candidate <= LOOK_BACK_COLUMNS; candidate--) {
    const state = stateOf(candidate);
    if (state === "text") return candidate;
    if (state === "blocked") return null;
  }
  return null;
}

/** Whether text `textWidth` px wide shows whole in a cell `cellWidth` px wide. */
export function fitsIn(textWidth: number, cellWidth: number): boolean {
  return textWidth + CELL_INSET <= cellWidth + 0.5;
}
