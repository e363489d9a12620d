import type { components } from "@cellar/client";

export type CellValue = components["schemas"]["CellWindow"]["values"][number][number];
export type CellType = NonNullable<NonNullable<components["schemas"]["CellWindow"]["types"]>[number][number]>;

/**
 * What a cell shows. A workbook's cells come from the API as its program displays them
 * (`render=formatted`: each number, date and time by its number format), and a CSV's as
 * the file has them, so this only writes booleans as spreadsheets do, and a text's lines
 * side by side, as a cell that does not wrap shows them.
 */
export function cellText(value: CellValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return String(value).replace(/\r\n?|\n/g, " ");
}

/**
 * How a cell lines up, as spreadsheets do: numbers and dates to the right, booleans and
 * errors centred, text to the left. A CSV's cells are all text; its column's guessed type
 * (`/sheets`' `column_types`) lines up the ones that look like numbers or dates.
 */
export function cellAlignment(type: CellType | null | undefined, csvColumnGuess: CellType | null | undefined) {
  const kind = type === "string" && csvColumnGuess != null ? csvColumnGuess : type;
  if (kind === "number" || kind === "date") return "end";
  if (kind === "boolean" || kind === "error") return "center";
  return "start";
}

/** Column letters for a column counted from 1: 1 → A, 27 → AA, 16384 → XFD. */
export function columnLetters(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/** A cell reference (`B12`, `b12`, `$B$12`) or a row number (`12`): its row and column from 1. */
export function parseCellReference(text: string): { row: number; column: number } | null {
  const match = /^\s*\$?([A-Za-z]{0,3})\$?([0-9]{1,7})\s*$/.exec(text);
  if (match === null) return null;
  const letters = (match[1] ?? "").toUpperCase();
  let column = 0;
  for (const letter of letters) column = column * 26 + letter.charCodeAt(0) - 64;
  const row = Number(match[2]);
  if (row < 1) return null;
  return { row, column: Math.max(column, 1) };
}
