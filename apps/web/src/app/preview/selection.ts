import type { CellValue } from "./cell-text.js";
import { columnLetters } from "./cell-text.js";

/** The last row of a workbook's sheet (Excel's): no selection reaches past it. */
export const SHEET_ROWS = 1_048_576;
/** The last column of a workbook's sheet (Excel's XFD). */
export const SHEET_COLUMNS = 16_384;

/** A cell, its row and column counted from 1. */
export interface Cell {
  readonly row: number;
  readonly column: number;
}

/** What a selection takes in: a block of cells, whole rows (row headers), whole columns (column headers), or the whole sheet. */
export type SelectionKind = "cells" | "rows" | "columns" | "all";

/**
 * A rectangular selection, as spreadsheets have it: two opposite corners. The `anchor` is
 * where it began and stays put while it grows, and is the cell typing goes into (what
 * Excel and Google Sheets call the active cell); the `focus` is the corner that shift+click
 * and shift+arrow move. For whole rows only their rows count, for whole columns their
 * columns; for `all` neither.
 */
export interface Selection {
  readonly kind: SelectionKind;
  readonly anchor: Cell;
  readonly focus: Cell;
}

/** A block of cells, rows and columns from 1, inclusive. */
export interface Bounds {
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}

/** A count of rows and columns from the first: a sheet's extent (how far its data reaches), or the last row and column a grid offers. */
export interface Extent {
  readonly rows: number;
  readonly columns: number;
}

/** A workbook's whole sheet. */
export const SHEET_LIMITS: Extent = { rows: SHEET_ROWS, columns: SHEET_COLUMNS };

/**
 * Whether a cell holds a value. The grid answers from the windows of cells it has loaded
 * (a cell not loaded counts as empty), so that a jump needs no request.
 */
export type HasData = (row: number, column: number) => boolean;

/** Which way an arrow key points. */
export type Direction = "up" | "down" | "left" | "right";

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

/** A cell kept on a sheet of `limits`' size. */
function clampCell(cell: Cell, limits: Extent): Cell {
  return { row: clamp(cell.row, 1, limits.rows), column: clamp(cell.column, 1, limits.columns) };
}

/** A click on a cell: that cell alone. */
export function selectCell(cell: Cell, limits: Extent = SHEET_LIMITS): Selection {
  const at = clampCell(cell, limits);
  return { kind: "cells", anchor: at, focus: at };
}

/**
 * A shift+click on a cell: the block from the anchor to it. Whole rows stay whole rows
 * (to the cell's row) and whole columns whole columns, as in Excel; from the whole
 * sheet, the block from A1.
 */
export function extendTo(selection: Selection, cell: Cell, limits: Extent = SHEET_LIMITS): Selection {
  const at = clampCell(cell, limits);
  if (selection.kind === "rows") return { ...selection, focus: { row: at.row, column: selection.anchor.column } };
  if (selection.kind === "columns") return { ...selection, focus: { row: selection.anchor.row, column: at.column } };
  const anchor = selection.kind === "all" ? { row: 1, column: 1 } : selection.anchor;
  return { kind: "cells", anchor, focus: at };
}

/** A click on a row header: the whole row; the anchor is its first cell. */
export function selectRow(row: number, limits: Extent = SHEET_LIMITS): Selection {
  const at = { row: clamp(row, 1, limits.rows), column: 1 };
  return { kind: "rows", anchor: at, focus: at };
}

/** A shift+click on a row header: the whole rows from the anchor's row to it. */
export function extendToRow(selection: Selection, row: number, limits: Extent = SHEET_LIMITS): Selection {
  const anchor = selection.kind === "rows" ? selection.anchor : { row: selection.anchor.row, column: 1 };
  return { kind: "rows", anchor, focus: { row: clamp(row, 1, limits.rows), column: anchor.column } };
}

/** A click on a column header: the whole column; the anchor is its first cell. */
export function selectColumn(column: number, limits: Extent = SHEET_LIMITS): Selection {
  const at = { row: 1, column: clamp(column, 1, limits.columns) };
  return { kind: "columns", anchor: at, focus: at };
}

/** A shift+click on a column header: the whole columns from the anchor's column to it. */
export function extendToColumn(selection: Selection, column: number, limits: Extent = SHEET_LIMITS): Selection {
  const anchor = selection.kind === "columns" ? selection.anchor : { row: 1, column: selection.anchor.column };
  return { kind: "columns", anchor, focus: { row: anchor.row, column: clamp(column, 1, limits.columns) } };
}

/** Whether a direction moves along rows (up, down) rather than columns. */
function vertical(direction: Direction): boolean {
  return direction === "up" || direction === "down";
}

/** Whether a selection of this kind can grow that way: whole rows only up and down, whole columns only sideways. */
function movesAlong(kind: SelectionKind, direction: Direction): boolean {
  if (kind === "all") return false;
  if (kind === "rows") return vertical(direction);
  if (kind === "columns") return !vertical(direction);
  return true;
}

/** One step from a cell, kept on the sheet. */
function step(cell: Cell, direction: Direction, limits: Extent): Cell {
  const rows = direction === "down" ? 1 : direction === "up" ? -1 : 0;
  const columns = direction === "right" ? 1 : direction === "left" ? -1 : 0;
  return clampCell({ row: cell.row + rows, column: cell.column + columns }, limits);
}

/** Shift+arrow: the focus one cell further that way (whole rows only up and down, whole columns only sideways). */
export function extendBy(selection: Selection, direction: Direction, limits: Extent = SHEET_LIMITS): Selection {
  if (!movesAlong(selection.kind, direction)) return selection;
  return { ...selection, focus: step(selection.focus, direction, limits) };
}

/**
 * Where Ctrl+arrow goes from a cell, as in Excel: from a cell with data whose neighbour
 * that way has data too, to the last cell of that run; otherwise to the next cell with
 * data that way; with none, to the sheet's edge. `extent` is how far the data reaches:
 * past it no cell is asked about (the sheet may have a million rows).
 */
export function dataEdge(
  from: Cell,
  direction: Direction,
  hasData: HasData,
  extent: Extent,
  limits: Extent = SHEET_LIMITS,
): Cell {
  const along = vertical(direction);
  const forward = direction === "down" || direction === "right";
  const last = along ? limits.rows : limits.columns;
  // The last row or column (that way) that can hold data: none past the extent.
  const dataEnd = Math.min(along ? extent.rows : extent.columns, last);
  const position = along ? from.row : from.column;
  const at = (index: number): Cell => (along ? { row: index, column: from.column } : { row: from.row, column: index });
  const filled = (index: number) => index >= 1 && index <= dataEnd && hasData(at(index).row, at(index).column);
  const by = forward ? 1 : -1;
  const edge = forward ? last : 1;
  if (position === edge) return at(edge);

  if (filled(position) && filled(position + by)) {
    let index = position + by;
    while (index !== edge && filled(index + by)) index += by;
    return at(index);
  }
  // From an empty cell, or the last of a run: to the next cell with data. No cell past the
  // extent has data, so the search starts or stops there rather than a million rows away.
  if (forward) {
    for (let index = position + 1; index <= dataEnd; index++) if (filled(index)) return at(index);
  } else {
    for (let index = Math.min(position - 1, dataEnd); index >= 1; index--) if (filled(index)) return at(index);
  }
  return at(edge);
}

/** Ctrl+arrow: the anchor moved to the data's edge that way, alone (the selection collapses to it). */
export function moveToDataEdge(
  selection: Selection,
  direction: Direction,
  hasData: HasData,
  extent: Extent,
  limits: Extent = SHEET_LIMITS,
): Selection {
  return selectCell(dataEdge(selection.anchor, direction, hasData, extent, limits), limits);
}

/** Ctrl+shift+arrow: the focus moved to the data's edge that way, the anchor kept. */
export function extendToDataEdge(
  selection: Selection,
  direction: Direction,
  hasData: HasData,
  extent: Extent,
  limits: Extent = SHEET_LIMITS,
): Selection {
  if (!movesAlong(selection.kind, direction)) return selection;
  return { ...selection, focus: dataEdge(selection.focus, direction, hasData, extent, limits) };
}

/**
 * Ctrl+A: the block of the sheet's data, from A1 to its extent; pressed again (the data
 * already selected), or on a sheet with no data, the whole sheet.
 */
export function selectAll(selection: Selection, extent: Extent, limits: Extent = SHEET_LIMITS): Selection {
  const data = {
    top: 1,
    left: 1,
    bottom: Math.min(extent.rows, limits.rows),
    right: Math.min(extent.columns, limits.columns),
  };
  const whole: Selection = {
    kind: "all",
    anchor: { row: 1, column: 1 },
    focus: { row: limits.rows, column: limits.columns },
  };
  if (data.bottom < 1 || data.right < 1 || selection.kind === "all") return whole;
  if (sameBounds(selectionBounds(selection, limits), data)) return whole;
  return { kind: "cells", anchor: { row: 1, column: 1 }, focus: { row: data.bottom, column: data.right } };
}

function sameBounds(a: Bounds, b: Bounds): boolean {
  return a.top === b.top && a.left === b.left && a.bottom === b.bottom && a.right === b.right;
}

/** The block a selection covers, on a sheet of `limits`' size: whole rows reach across it, whole columns down it. */
export function selectionBounds(selection: Selection, limits: Extent = SHEET_LIMITS): Bounds {
  const { anchor, focus } = selection;
  const rows = {
    top: clamp(Math.min(anchor.row, focus.row), 1, limits.rows),
    bottom: clamp(Math.max(anchor.row, focus.row), 1, limits.rows),
  };
  const columns = {
    left: clamp(Math.min(anchor.column, focus.column), 1, limits.columns),
    right: clamp(Math.max(anchor.column, focus.column), 1, limits.columns),
  };
  if (selection.kind === "all") return { top: 1, left: 1, bottom: limits.rows, right: limits.columns };
  if (selection.kind === "rows") return { ...rows, left: 1, right: limits.columns };
  if (selection.kind === "columns") return { top: 1, bottom: limits.rows, ...columns };
  return { ...rows, ...columns };
}

/**
 * The part of a selection that can hold data: its block cut to the sheet's extent, or
 * null when it holds none. What the status bar's figures and a copy read: whole columns
 * are a million rows, of which only the extent's need asking for.
 */
export function dataBounds(selection: Selection, extent: Extent, limits: Extent = SHEET_LIMITS): Bounds | null {
  const bounds = selectionBounds(selection, limits);
  const bottom = Math.min(bounds.bottom, extent.rows);
  const right = Math.min(bounds.right, extent.columns);
  return bottom < bounds.top || right < bounds.left ? null : { ...bounds, bottom, right };
}

/** Whether a cell is in the selection. */
export function selectionContains(selection: Selection, cell: Cell, limits: Extent = SHEET_LIMITS): boolean {
  const bounds = selectionBounds(selection, limits);
  return (
    cell.row >= bounds.top && cell.row <= bounds.bottom && cell.column >= bounds.left && cell.column <= bounds.right
  );
}

/** Whether a selection is one cell (then the grid shows no block, and the status bar no figures). */
export function isSingleCell(selection: Selection): boolean {
  return (
    selection.kind === "cells" &&
    selection.anchor.row === selection.focus.row &&
    selection.anchor.column === selection.focus.column
  );
}

/**
 * A block grown to hold whole every merged area it reaches into, as spreadsheets select:
 * a selection never cuts a merged cell. `touching` gives the areas with a cell in a block
 * (MergedAreas' `touching`); growing may reach more areas, so it repeats until none is cut.
 */
export function coverMergedAreas(
  bounds: Bounds,
  touching: (top: number, bottom: number, left: number, right: number) => readonly Bounds[],
): Bounds {
  let grown = bounds;
  for (;;) {
    let next = grown;
    for (const area of touching(grown.top, grown.bottom, grown.left, grown.right)) {
      next = {
        top: Math.min(next.top, area.top),
        left: Math.min(next.left, area.left),
        bottom: Math.max(next.bottom, area.bottom),
        right: Math.max(next.right, area.right),
      };
    }
    if (sameBounds(next, grown)) return grown;
    grown = next;
  }
}

/**
 * A selection in A1 notation, as a name box shows it: `B2`, `B2:D4`, whole rows `3:5`,
 * whole columns `B:D`, the whole sheet `1:1048576` (as Excel writes it).
 */
export function selectionText(selection: Selection, limits: Extent = SHEET_LIMITS): string {
  const { top, left, bottom, right } = selectionBounds(selection, limits);
  if (selection.kind === "all") return `1:${limits.rows}`;
  if (selection.kind === "rows") return `${top}:${bottom}`;
  if (selection.kind === "columns") return `${columnLetters(left)}:${columnLetters(right)}`;
  const start = `${columnLetters(left)}${top}`;
  return top === bottom && left === right ? start : `${start}:${columnLetters(right)}${bottom}`;
}

/** The figures a status bar shows for a selection. */
export interface SelectionStats {
  /** Cells with a value (text, number, boolean, error), as Excel's Count. */
  readonly count: number;
  /** Cells with a number. */
  readonly numbers: number;
  /** Of the numbers; absent when there are none. */
  readonly sum?: number;
  /** Of the numbers; absent when there are none. */
  readonly average?: number;
}

/**
 * The status bar's figures for the values in a selection, as Excel's: Count counts the
 * cells with a value, Sum and Average only the numbers. Pass the raw values (`render=raw`):
 * formatted ones are all text. Dates come from the API as ISO text, so they count but do
 * not add up. Sums are compensated (Neumaier), so 0.1 + 0.2 + … does not drift.
 */
export function selectionStats(values: Iterable<CellValue>): SelectionStats {
  let count = 0;
  let numbers = 0;
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    if (value === null || value === "") continue;
    count++;
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    numbers++;
    const total = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - total + value : value - total + sum;
    sum = total;
  }
  if (numbers === 0) return { count, numbers };
  const exact = sum + compensation;
  return { count, numbers, sum: exact, average: exact / numbers };
}

/**
 * A figure as the status bar writes it: in the reader's locale, at most 10 significant
 * digits (so 1/3 is 0.3333333333), but a whole number never rounded (12,345,678,901).
 */
export function formatFigure(value: number, locales?: Intl.LocalesArgument): string {
  const shown = value === 0 ? 0 : value; // not "-0"
  return Math.abs(shown) >= 1e10
    ? shown.toLocaleString(locales, { maximumFractionDigits: 0 })
    : shown.toLocaleString(locales, { maximumSignificantDigits: 10 });
}

/** The status bar's text: `Sum 12 · Average 4 · Count 3`, `Count 2` without numbers, nothing for no values. */
export function formatSelectionStats(stats: SelectionStats, locales?: Intl.LocalesArgument): string {
  if (stats.count === 0) return "";
  const parts: string[] = [];
  if (stats.sum !== undefined) parts.push(`Sum ${formatFigure(stats.sum, locales)}`);
  if (stats.average !== undefined) parts.push(`Average ${formatFigure(stats.average, locales)}`);
  parts.push(`Count ${formatFigure(stats.count, locales)}`);
  return parts.join(" · ");
}
