import { invalidField } from "../shared/errors.js";
import { type A1Range, parseA1Range } from "../sheets/a1-range.js";
import type { CellValue } from "../sheets/sheet-index.js";
import type { CellRectangle } from "../sheets/spreadsheet-reader.port.js";
import { CELL_INPUTS, type CellInput } from "./typed-input.js";

/** The most cells one edit writes, over all its ranges (as many as a window answers). */
export const MAX_EDIT_CELLS = 50_000;

/** A grid of cells, row by row, every row as long as the first. */
export type ValueGrid = readonly (readonly CellValue[])[];

/** One range of an edit, checked: where its values go, and what it expects there now. */
export interface RequestedWrite {
  /** The sheet the range names, or null for the first. */
  readonly sheet: string | null;
  /** Exactly the values' shape, rows and columns counted from 1. */
  readonly rectangle: CellRectangle;
  readonly values: ValueGrid;
  /** What the cells must hold for the edit to apply (a cell-level precondition), when given. */
  readonly expect?: ValueGrid;
  /** How the request named this range, for errors (`range`, `data[1].range`). */
  readonly field: string;
}

/**
 * Checks a cell edit's body, `{ range, values, expect? }` or `{ data: [{ range, values,
 * expect? }, …] }`, into the ranges it writes. Throws `validation_error` on the field
 * that is wrong: a range that is not one cell or a rectangle of the values' exact shape,
 * rows of unequal length, a value that is not a string, finite number, boolean or null,
 * an `expect` of another shape, more than `MAX_EDIT_CELLS` cells, or fields of both forms.
 */
export function parseCellWrites(body: unknown): RequestedWrite[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidField("body", "must be a JSON object: { range, values } or { data: [{ range, values }, …] }");
  }
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!["range", "values", "expect", "data", "input"].includes(key)) throw invalidField(key, "is not a known field");
  }
  let writes: RequestedWrite[];
  if ("data" in fields) {
    for (const key of ["range", "values", "expect"]) {
      if (key in fields) throw invalidField(key, "must be inside `data` when `data` is given");
    }
    const data = fields.data;
    if (!Array.isArray(data) || data.length === 0) throw invalidField("data", "must be a non-empty array of ranges");
    writes = data.map((entry, position) => parseOne(entry, `data[${position}].`));
  } else {
    writes = [parseOne(fields, "")];
  }
  const cells = writes.reduce((sum, write) => sum + cellCount(write.rectangle), 0);
  if (cells > MAX_EDIT_CELLS) {
    throw invalidField(writes.length === 1 ? "values" : "data", `holds ${cells} cells; at most ${MAX_EDIT_CELLS}`);
  }
  return writes;
}

/** How an edit's strings are read (`input`): `raw` when absent. */
export function parseCellInput(input: unknown): CellInput {
  if (input === undefined) return "raw";
  if (typeof input !== "string" || !CELL_INPUTS.includes(input as CellInput)) {
    throw invalidField("input", `is ${CELL_INPUTS.map((name) => `"${name}"`).join(" or ")}`);
  }
  return input as CellInput;
}

/** Checks the rows an append adds: a non-empty grid of values, within `MAX_EDIT_CELLS`. */
export function parseAppendedRows(values: unknown): ValueGrid {
  const grid = parseGrid(values, "values");
  const cells = grid.length * (grid[0]?.length ?? 0);
  if (cells > MAX_EDIT_CELLS) throw invalidField("values", `holds ${cells} cells; at most ${MAX_EDIT_CELLS}`);
  return grid;
}

export function cellCount(rectangle: CellRectangle): number {
  return (rectangle.lastRow - rectangle.firstRow + 1) * (rectangle.lastColumn - rectangle.firstColumn + 1);
}

function parseOne(entry: unknown, prefix: string): RequestedWrite {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw invalidField(prefix.replace(/\.$/, ""), "must be an object: { range, values, expect? }");
  }
  const fields = entry as Record<string, unknown>;
  if (prefix !== "") {
    for (const key of Object.keys(fields)) {
      if (!["range", "values", "expect"].includes(key)) throw invalidField(`${prefix}${key}`, "is not a known field");
    }
  }
  if (typeof fields.range !== "string") {
    throw invalidField(`${prefix}range`, "is required: an A1 cell or rectangle such as B2 or B2:D4");
  }
  const range = parseA1Range(fields.range, `${prefix}range`);
  const values = parseGrid(fields.values, `${prefix}values`);
  const rectangle = placed(range, values, `${prefix}range`);
  if (fields.expect === undefined) return { sheet: range.sheet, rectangle, values, field: `${prefix}range` };
  const expect = parseGrid(fields.expect, `${prefix}expect`);
  if (expect.length !== values.length || expect[0]?.length !== values[0]?.length) {
    throw invalidField(`${prefix}expect`, "must have the shape of `values`");
  }
  return { sheet: range.sheet, rectangle, values, expect, field: `${prefix}range` };
}

/** Where a grid goes: from a single cell, its top-left corner; else a rectangle that must be of its shape. */
function placed(range: A1Range, values: ValueGrid, field: string): CellRectangle {
  if (range.lastRow === null || range.lastColumn === null) {
    throw invalidField(field, "must be one cell or a rectangle (B2 or B2:D4), not whole rows or columns");
  }
  const rows = values.length;
  const columns = values[0]?.length ?? 0;
  const single = range.firstRow === range.lastRow && range.firstColumn === range.lastColumn;
  const rectangle = {
    firstRow: range.firstRow,
    firstColumn: range.firstColumn,
    lastRow: range.firstRow + rows - 1,
    lastColumn: range.firstColumn + columns - 1,
  };
  if (!single && (rectangle.lastRow !== range.lastRow || rectangle.lastColumn !== range.lastColumn)) {
    throw invalidField(
      field,
      `is ${range.lastRow - range.firstRow + 1} × ${range.lastColumn - range.firstColumn + 1} cells, but the values are ${rows} × ${columns}`,
    );
  }
  return rectangle;
}

function parseGrid(grid: unknown, field: string): ValueGrid {
  if (!Array.isArray(grid) || grid.length === 0) throw invalidField(field, "must be a non-empty array of rows");
  const width = Array.isArray(grid[0]) ? grid[0].length : 0;
  if (width === 0) throw invalidField(field, "must hold rows, each a non-empty array of cells");
  for (const [r, row] of grid.entries()) {
    if (!Array.isArray(row) || row.length !== width) {
      throw invalidField(field, `row ${r + 1} must be an array of ${width} cells, as long as the first`);
    }
    for (const [c, value] of row.entries()) {
      const ok =
        value === null ||
        typeof value === "string" ||
        typeof value === "boolean" ||
        (typeof value === "number" && Number.isFinite(value));
      if (!ok) {
        throw invalidField(field, `row ${r + 1}, cell ${c + 1} must be a string, a finite number, a boolean or null`);
      }
    }
  }
  return grid as ValueGrid;
}
