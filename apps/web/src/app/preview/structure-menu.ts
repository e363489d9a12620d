import type { StructureOperation } from "@cellar/client";
import { columnLetters } from "./cell-text.js";
import type { Bounds, SelectionKind } from "./selection.js";

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
    {
      label: `Insert ${plural(rows, "row", "rows")} below`,
      operation: { insert: "rows", sheet, before: bounds.bottom + 1, count: rows },
    },
  ];
  const columnItems: StructureItem[] = [
    {
      label: `Insert ${plural(columns, "column", "columns")} left`,
      operation: { insert: "columns", sheet, before: columnLetters(bounds.left), count: columns },
    },
    {
      label: `Insert ${plural(columns, "column", "columns")} right`,
      operation: { insert: "columns", sheet, before: columnLetters(bounds.right + 1), count: columns },
    },
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

/** What a change of structure did, as the grid's status says it: `Inserted 2 rows above row 3.` */
export function structureDone(operation: StructureOperation): string {
  if ("insert" in operation) {
    const count = operation.count;
    return operation.insert === "rows"
      ? `Inserted ${plural(count, "a row", "rows")} at row ${operation.before}.`
      : `Inserted ${plural(count, "a column", "columns")} at column ${operation.before}.`;
  }
  if ("delete" in operation) {
    return operation.delete === "rows"
      ? `Deleted ${plural(operation.count, "row", "rows")} from row ${operation.from}.`
      : `Deleted ${plural(operation.count, "column", "columns")} from column ${operation.from}.`;
  }
  if ("add_sheet" in operation) return `Added the sheet ${operation.add_sheet}.`;
  if ("rename_sheet" in operation) return `Renamed the sheet ${operation.rename_sheet} to ${operation.to}.`;
  if ("move_sheet" in operation) return `Moved the sheet ${operation.move_sheet}.`;
  return `Deleted the sheet ${operation.delete_sheet}.`;
}
