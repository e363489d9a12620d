import type { StructureOperation } from "@cellar/client";
import { columnLetters, parseCellReference } from "./cell-text.js";
import { type Bounds, type SelectionKind, SHEET_COLUMNS, SHEET_ROWS } from "./selection.js";

/** An item of the rows and columns menu: its label and the one operation it sends. */
export interface StructureItem {
  readonly label: string;
  readonly operation: StructureOperation;
  /** Deletes cells: shown apart, in the danger colour. */
  readonly danger?: boolean;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : `${count} ${many}`);

/** The rows a block covers, named as a menu names them: `Row 3`, `Rows 3 to 5`. */
export function rowsName(bounds: Bounds): string {
  return bounds.top === bounds.bottom ? `Row ${bounds.top}` : `Rows ${bounds.top} to ${bounds.bottom}`;
}

/** The columns a block covers: `Column B`, `Columns B to D`. */
export function columnsName(bounds: Bounds): string {
  return bounds.left === bounds.right
    ? `Column ${columnLetters(bounds.left)}`
    : `Columns ${columnLetters(bounds.left)} to ${columnLetters(bounds.right)}`;
}

/**
 * What the rows and columns menu offers for a selection, each one `POST /structure`
 * operation on the selection's rows or columns (as many as it covers, as Excel inserts):
 * whole rows get the rows' items, whole columns the columns', a block of cells both.
 */
export function structureItems(sheet: string, kind: SelectionKind, bounds: Bounds): StructureItem[] {
  const rows = bounds.bottom - bounds.top + 1;
  const columns = bounds.right - bounds.left + 1;
  const rowItems: StructureItem[] = [
    {
      label: `Insert ${plural(rows, "row", "rows")} above`,
      operation: { insert: "rows", sheet, before: bounds.top, count: rows },
    },
    // Below the sheet's last row, or right of its last column, there is no place to insert.
    ...(bounds.bottom < SHEET_ROWS
      ? [
          {
            label: `Insert ${plural(rows, "row", "rows")} below`,
            operation: { insert: "rows", sheet, before: bounds.bottom + 1, count: rows } as const,
          },
        ]
      : []),
  ];
  const columnItems: StructureItem[] = [
    {
      label: `Insert ${plural(columns, "column", "columns")} left`,
      operation: { insert: "columns", sheet, before: columnLetters(bounds.left), count: columns },
    },
    ...(bounds.right < SHEET_COLUMNS
      ? [
          {
            label: `Insert ${plural(columns, "column", "columns")} right`,
            operation: {
              insert: "columns",
              sheet,
              before: columnLetters(bounds.right + 1),
              count: columns,
            } as const,
          },
        ]
      : []),
  ];
  const deleteRows: StructureItem = {
    label: rows === 1 ? `Delete row ${bounds.top}` : `Delete rows ${bounds.top} to ${bounds.bottom}`,
    operation: { delete: "rows", sheet, from: bounds.top, count: rows },
    danger: true,
  };
  const deleteColumns: StructureItem = {
    label:
      columns === 1
        ? `Delete column ${columnLetters(bounds.left)}`
        : `Delete columns ${columnLetters(bounds.left)} to ${columnLetters(bounds.right)}`,
    operation: { delete: "columns", sheet, from: columnLetters(bounds.left), count: columns },
    danger: true,
  };
  if (kind === "rows") return [...rowItems, deleteRows];
  if (kind === "columns") return [...columnItems, deleteColumns];
  if (kind === "all") return [];
  return [...rowItems, ...columnItems, deleteRows, deleteColumns];
}

/** What a change of structure did, as the grid's status says it: `Inserted 2 rows at row 3.`, `Deleted rows 3 to 5.` */
export function structureDone(operation: StructureOperation): string {
  if ("insert" in operation) {
    const count = operation.count;
    return operation.insert === "rows"
      ? `Inserted ${plural(count, "a row", "rows")} at row ${operation.before}.`
      : `Inserted ${plural(count, "a column", "columns")} at column ${operation.before}.`;
  }
  if ("delete" in operation) {
    const { count } = operation;
    if (operation.delete === "rows") {
      const last = operation.from + count - 1;
      return count === 1 ? `Deleted row ${operation.from}.` : `Deleted rows ${operation.from} to ${last}.`;
    }
    const first = parseCellReference(`${operation.from}1`)?.column ?? 1;
    return count === 1
      ? `Deleted column ${operation.from}.`
      : `Deleted columns ${operation.from} to ${columnLetters(first + count - 1)}.`;
  }
  if ("add_sheet" in operation) return `Added the sheet ${operation.add_sheet}.`;
  if ("rename_sheet" in operation) return `Renamed the sheet ${operation.rename_sheet} to ${operation.to}.`;
  if ("move_sheet" in operation) return `Moved the sheet ${operation.move_sheet}.`;
  return `Deleted the sheet ${operation.delete_sheet}.`;
}

/** A change of structure as an undo or a redo names it after a colon: `inserted a row at row 3.` */
export function structureStep(operation: StructureOperation): string {
  const done = structureDone(operation);
  return `${done.charAt(0).toLowerCase()}${done.slice(1)}`;
}
