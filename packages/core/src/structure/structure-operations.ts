import type { JsonObject } from "../activity/activity.entity.js";
import { invalidField } from "../shared/errors.js";
import { columnLetters, columnNumber } from "../sheets/a1-range.js";
import { STRUCTURE_MAX_COLUMNS, STRUCTURE_MAX_ROWS, type StructureChange, sameSheet } from "./structure-change.js";

/** The most operations one request may hold. */
export const MAX_STRUCTURE_OPERATIONS = 100;

/**
 * An operation of `POST /files/:id/structure` as read (decisions §9), sheets by name:
 * rows and columns inserted or deleted, or a sheet added, renamed, moved or deleted.
 */
export type StructureOperation =
  | StructureChange
  | { readonly kind: "add_sheet"; readonly name: string; readonly index: number | null }
  | { readonly kind: "move_sheet"; readonly sheet: string; readonly to: number };

/** A sheet as a structure request sees it: its name, and how far its cells reach. */
export interface StructuredSheet {
  readonly name: string;
  readonly rowCount: number;
  readonly columnCount: number;
}

/**
 * Why a name cannot be a sheet's, as Excel's rules have it, or null: 1 to 31 characters,
 * none of `: \ / ? * [ ]`, not starting or ending with `'`.
 */
export function sheetNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 31) return "a sheet's name has 1 to 31 characters";
  if (/[:\\/?*[\]]/.test(name)) return "a sheet's name holds none of : \\ / ? * [ ]";
  if (name.startsWith("'") || name.endsWith("'")) return "a sheet's name does not start or end with '";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(name)) return "a sheet's name holds no control character";
  return null;
}

/**
 * Reads a request's operations against the file's sheets, each applied to what the ones
 * before it left (sheets added, renamed, moved, deleted; rows and columns counted), and
 * gives them in order. Throws `validation_error` naming the first one refused
 * (`operations[2]`): nothing is written then. `csv`: a CSV has one sheet, and takes rows
 * and columns only.
 */
export function readStructureOperations(
  input: unknown,
  sheets: readonly StructuredSheet[],
  limits: { readonly csv: boolean; readonly maxColumns: number; readonly maxRows: number },
): StructureOperation[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw invalidField("operations", "is required: a list of 1 or more operations");
  }
  if (input.length > MAX_STRUCTURE_OPERATIONS) {
    throw invalidField("operations", `holds at most ${MAX_STRUCTURE_OPERATIONS} operations`);
  }
  // What the sheets are after each operation: names and extents.
  const now: { name: string; rowCount: number; columnCount: number }[] = sheets.map((sheet) => ({ ...sheet }));
  const operations: StructureOperation[] = [];
  for (const [position, raw] of input.entries()) {
    const field = `operations[${position}]`;
    const refuse = (message: string) => invalidField(field, message);
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw refuse("is an object");
    const operation = raw as Record<string, unknown>;
    const sheetNamed = (key: string) => {
      const name = operation[key];
      if (typeof name !== "string") throw refuse(`${key} is a sheet's name`);
      const found = now.findIndex((sheet) => sameSheet(sheet.name, name));
      if (found === -1) throw refuse(`no sheet is named ${JSON.stringify(name)}`);
      return found;
    };
    const newName = (key: string, except: number | null) => {
      const name = operation[key];
      if (typeof name !== "string") throw refuse(`${key} is a sheet's name`);
      const problem = sheetNameProblem(name);
      if (problem !== null) throw refuse(problem);
      if (now.some((sheet, at) => at !== except && sameSheet(sheet.name, name))) {
        throw refuse(`a sheet is named ${JSON.stringify(name)} already (names compare case aside)`);
      }
      return name;
    };
    const whole = (key: string, min: number, max: number) => {
      const value = operation[key];
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
        throw refuse(`${key} is a whole number from ${min} to ${max}`);
      }
      return value;
    };
    const noSheetsInCsv = () => {
      if (limits.csv) throw refuse("a CSV has one sheet: its rows and columns change, not its sheets");
    };
    const keys = Object.keys(operation);
    const known = (...allowed: string[]) => {
      const extra = keys.find((key) => !allowed.includes(key));
      if (extra !== undefined) throw refuse(`${extra} is not a field of this operation`);
    };

    if ("insert" in operation || "delete" in operation) {
      const inserting = "insert" in operation;
      const what = inserting ? operation.insert : operation.delete;
      if (what !== "rows" && what !== "columns")
        throw refuse(`${inserting ? "insert" : "delete"} is "rows" or "columns"`);
      const positionKey = inserting ? "before" : "from";
      known(inserting ? "insert" : "delete", "sheet", positionKey, "count");
      const sheet = sheetNamed("sheet");
      const target = now[sheet] as (typeof now)[number];
      const rows = what === "rows";
      const max = rows ? limits.maxRows : limits.maxColumns;
      let at: number;
      if (rows) at = whole(positionKey, 1, max);
      else {
        const letters = operation[positionKey];
        if (typeof letters !== "string" || !/^[A-Za-z]{1,3}$/.test(letters)) {
          throw refuse(`${positionKey} is a column's letters (C, AB)`);
        }
        at = columnNumber(letters);
        if (at > max) throw refuse(`${positionKey} is past column ${max}, the last a sheet has`);
      }
      const count = whole("count", 1, max - at + 1);
      const extent = rows ? target.rowCount : target.columnCount;
      if (inserting && extent >= at && extent + count > max) {
        throw refuse(`would push cells past ${rows ? `row ${max}` : `column ${max}`}, the last a sheet has`);
      }
      const kind = `${inserting ? "insert" : "delete"}_${what}` as const;
      operations.push({ kind, sheet: target.name, at, count });
      const grown = (value: number) =>
        inserting ? (value >= at ? value + count : value) : value >= at ? Math.max(at - 1, value - count) : value;
      if (rows) target.rowCount = grown(target.rowCount);
      else target.columnCount = grown(target.columnCount);
      continue;
    }
    if ("add_sheet" in operation) {
      noSheetsInCsv();
      known("add_sheet", "index");
      const name = newName("add_sheet", null);
      const index = operation.index === undefined ? null : whole("index", 0, now.length);
      operations.push({ kind: "add_sheet", name, index });
      now.splice(index ?? now.length, 0, { name, rowCount: 0, columnCount: 0 });
      continue;
    }
    if ("rename_sheet" in operation) {
      noSheetsInCsv();
      known("rename_sheet", "to");
      const sheet = sheetNamed("rename_sheet");
      const to = newName("to", sheet);
      const target = now[sheet] as (typeof now)[number];
      operations.push({ kind: "rename_sheet", sheet: target.name, to });
      now[sheet] = { ...target, name: to };
      continue;
    }
    if ("move_sheet" in operation) {
      noSheetsInCsv();
      known("move_sheet", "to");
      const sheet = sheetNamed("move_sheet");
      const to = whole("to", 0, now.length - 1);
      const [moved] = now.splice(sheet, 1) as [(typeof now)[number]];
      now.splice(to, 0, moved);
      operations.push({ kind: "move_sheet", sheet: moved.name, to });
      continue;
    }
    if ("delete_sheet" in operation) {
      noSheetsInCsv();
      known("delete_sheet");
      const sheet = sheetNamed("delete_sheet");
      if (now.length === 1) throw refuse("a workbook keeps at least one sheet");
      const [gone] = now.splice(sheet, 1) as [(typeof now)[number]];
      operations.push({ kind: "delete_sheet", sheet: gone.name });
      continue;
    }
    throw refuse("is one of insert, delete, add_sheet, rename_sheet, move_sheet, delete_sheet");
  }
  return operations;
}

/** The limits of a workbook's sheet; a CSV's come from its reader. */
export const WORKBOOK_STRUCTURE_LIMITS = {
  csv: false,
  maxRows: STRUCTURE_MAX_ROWS,
  maxColumns: STRUCTURE_MAX_COLUMNS,
} as const;

/** An operation as the API writes it (decisions §9): what the activity and the `content` event say. */
export function operationJson(operation: StructureOperation): JsonObject {
  switch (operation.kind) {
    case "insert_rows":
      return { insert: "rows", sheet: operation.sheet, before: operation.at, count: operation.count };
    case "insert_columns":
      return { insert: "columns", sheet: operation.sheet, before: columnLetters(operation.at), count: operation.count };
    case "delete_rows":
      return { delete: "rows", sheet: operation.sheet, from: operation.at, count: operation.count };
    case "delete_columns":
      return { delete: "columns", sheet: operation.sheet, from: columnLetters(operation.at), count: operation.count };
    case "add_sheet":
      return operation.index === null
        ? { add_sheet: operation.name }
        : { add_sheet: operation.name, index: operation.index };
    case "rename_sheet":
      return { rename_sheet: operation.sheet, to: operation.to };
    case "move_sheet":
      return { move_sheet: operation.sheet, to: operation.to };
    case "delete_sheet":
      return { delete_sheet: operation.sheet };
  }
}
