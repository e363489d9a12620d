import { formatA1Range, parseA1Range } from "../sheets/a1-range.js";

/**
 * What changing a file's structure does to what refers to its cells (decisions §9): one
 * change at a time, as Excel applies it. Formulas follow through the formula engine
 * (`FormulaEngine.restructure`); rectangles (merged ranges, comments' ranges, a defined
 * name's area) through `movedArea` here.
 */

/** The rows a workbook's sheet has; a CSV's rows are bounded by its reading limits instead. */
export const STRUCTURE_MAX_ROWS = 1_048_576;
/** The columns a sheet has: A to XFD. */
export const STRUCTURE_MAX_COLUMNS = 16_384;

/**
 * One change of structure, sheets by name:
 * - `insert_rows` / `insert_columns`: `count` new ones before `at`; cells at and after move
 *   down or right;
 * - `delete_rows` / `delete_columns`: `count` of them from `at`; those after move up or left;
 * - `rename_sheet`, `delete_sheet`: a sheet's name changes, or the sheet goes.
 */
export type StructureChange =
  | {
      readonly kind: "insert_rows" | "delete_rows" | "insert_columns" | "delete_columns";
      readonly sheet: string;
      readonly at: number;
      readonly count: number;
    }
  | { readonly kind: "rename_sheet"; readonly sheet: string; readonly to: string }
  | { readonly kind: "delete_sheet"; readonly sheet: string };

/** Whether an operation changes what refers to cells (rows, columns, a sheet's name or the sheet), as `StructureChange` has it. */
export function isStructureChange(operation: { readonly kind: string }): operation is StructureChange {
  return STRUCTURE_CHANGE_KINDS.has(operation.kind);
}

const STRUCTURE_CHANGE_KINDS: ReadonlySet<string> = new Set([
  "insert_rows",
  "delete_rows",
  "insert_columns",
  "delete_columns",
  "rename_sheet",
  "delete_sheet",
]);

/** A rectangle of a named sheet, both ends included, counted from 1. */
export interface NamedArea {
  readonly sheet: string;
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/** Sheet names compare as Excel compares them: case aside. */
export const sameSheet = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();

/**
 * A span `[first, last]` of rows or columns after `count` are inserted before `at`: what
 * lies at or after `at` moves by `count`, so a span across `at` grows. Null when its end is
 * pushed past `limit` (Excel's `#REF!`).
 */
export function spanAfterInsert(
  first: number,
  last: number,
  at: number,
  count: number,
  limit: number,
): [number, number] | null {
  const movedFirst = first >= at ? first + count : first;
  const movedLast = last >= at ? last + count : last;
  if (movedFirst > limit) return null;
  return [movedFirst, Math.min(movedLast, limit)];
}

/**
 * A span after `count` rows or columns from `at` are deleted: what lies after them moves
 * back; the part inside them goes. Null when the span lay wholly inside them (`#REF!`).
 */
export function spanAfterDelete(first: number, last: number, at: number, count: number): [number, number] | null {
  const end = at + count - 1;
  if (first >= at && last <= end) return null;
  const movedFirst = first < at ? first : first > end ? first - count : at;
  const movedLast = last < at ? last : last > end ? last - count : at - 1;
  return [movedFirst, movedLast];
}

/**
 * A rectangle after a change: moved, grown or shrunk as its cells are; null when all its
 * cells, or its sheet, are gone. A whole column (`A:A`, rows 1 to the last) keeps its
 * rows, a whole row its columns.
 */
export function movedArea(area: NamedArea, change: StructureChange): NamedArea | null {
  if (change.kind === "rename_sheet") {
    return sameSheet(area.sheet, change.sheet) ? { ...area, sheet: change.to } : area;
  }
  if (!sameSheet(area.sheet, change.sheet)) return area;
  if (change.kind === "delete_sheet") return null;
  const rows = change.kind === "insert_rows" || change.kind === "delete_rows";
  const [first, last, whole] = rows
    ? [area.firstRow, area.lastRow, area.firstRow === 1 && area.lastRow >= STRUCTURE_MAX_ROWS]
    : [area.firstColumn, area.lastColumn, area.firstColumn === 1 && area.lastColumn >= STRUCTURE_MAX_COLUMNS];
  if (whole) return area;
  const limit = rows ? STRUCTURE_MAX_ROWS : STRUCTURE_MAX_COLUMNS;
  const span =
    change.kind === "insert_rows" || change.kind === "insert_columns"
      ? spanAfterInsert(first, last, change.at, change.count, limit)
      : spanAfterDelete(first, last, change.at, change.count);
  if (span === null) return null;
  return rows
    ? { ...area, firstRow: span[0], lastRow: span[1] }
    : { ...area, firstColumn: span[0], lastColumn: span[1] };
}

/**
 * What a comment thread's range (an A1 range as `/values` takes it; without a sheet, the
 * first sheet's) becomes after `changes`: moved, grown or shrunk with its cells, with its
 * sheet's new name; null when its cells or its sheet are gone (the thread is then about
 * the whole file: nothing is lost). An open end (`A:C`, `3:5`) stays open.
 */
export function movedRange(range: string, changes: readonly StructureChange[], firstSheet: string): string | null {
  let parsed: ReturnType<typeof parseA1Range>;
  try {
    parsed = parseA1Range(range, "range");
  } catch {
    return range;
  }
  let area: NamedArea | null = {
    sheet: parsed.sheet ?? firstSheet,
    firstRow: parsed.firstRow,
    lastRow: parsed.lastRow ?? STRUCTURE_MAX_ROWS,
    firstColumn: parsed.firstColumn,
    lastColumn: parsed.lastColumn ?? STRUCTURE_MAX_COLUMNS,
  };
  for (const change of changes) {
    area = movedArea(area, change);
    if (area === null) return null;
  }
  return formatA1Range({
    ...area,
    lastRow: parsed.lastRow === null && area.lastRow >= STRUCTURE_MAX_ROWS ? null : area.lastRow,
    lastColumn: parsed.lastColumn === null && area.lastColumn >= STRUCTURE_MAX_COLUMNS ? null : area.lastColumn,
  });
}
