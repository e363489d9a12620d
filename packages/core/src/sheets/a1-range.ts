import { invalidField } from "../shared/errors.js";

/** The widest sheet a workbook can have: column XFD. */
export const MAX_COLUMNS = 16_384;
/**
 * The highest row number a range may name. Workbooks stop at 1,048,576 rows; a CSV may
 * go on, so rows are bounded only where numbers stay exact and cheap.
 */
export const MAX_ROW = 2_147_483_647;

/**
 * A rectangle of cells in A1 notation, rows and columns counted from 1, both ends
 * included. An end left open (`A:C` has no last row, `3:5` no last column) reaches to
 * the sheet's extent.
 */
export interface A1Range {
  /** The sheet named in the range, or null for the first sheet. */
  readonly sheet: string | null;
  readonly firstRow: number;
  readonly lastRow: number | null;
  readonly firstColumn: number;
  readonly lastColumn: number | null;
}

// A cell or a bound: column letters, row digits, or both (`B`, `7`, `B7`), with the `$`
// of absolute references allowed and ignored.
const BOUND = /^\$?([A-Za-z]{0,3})\$?([0-9]{0,10})$/;

interface Bound {
  readonly column: number | null;
  readonly row: number | null;
}

/** Column letters to a number: A is 1, Z 26, AA 27, XFD 16,384. */
export function columnNumber(letters: string): number {
  let number = 0;
  for (const letter of letters.toUpperCase()) number = number * 26 + (letter.charCodeAt(0) - 64);
  return number;
}

/** A column number to its letters: 1 is A, 27 AA. */
export function columnLetters(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

function parseBound(text: string): Bound | null {
  const match = BOUND.exec(text);
  if (match === null) return null;
  const [, letters = "", digits = ""] = match;
  if (letters === "" && digits === "") return null;
  const column = letters === "" ? null : columnNumber(letters);
  const row = digits === "" ? null : Number(digits);
  if (column !== null && column > MAX_COLUMNS) return null;
  if (row !== null && (row < 1 || row > MAX_ROW)) return null;
  return { column, row };
}

/** The sheet part of a range: `'It''s here'!` or `Sheet2!`; the rest of the text after it. */
function splitSheet(text: string): { sheet: string | null; cells: string } | null {
  if (text.startsWith("'")) {
    let name = "";
    let at = 1;
    for (;;) {
      const quote = text.indexOf("'", at);
      if (quote === -1) return null;
      name += text.slice(at, quote);
      if (text[quote + 1] === "'") {
        name += "'";
        at = quote + 2;
        continue;
      }
      if (text[quote + 1] !== "!" || name === "") return null;
      return { sheet: name, cells: text.slice(quote + 2) };
    }
  }
  const bang = text.lastIndexOf("!");
  if (bang === -1) return { sheet: null, cells: text };
  const name = text.slice(0, bang);
  // Unquoted names are plain: no spaces, quotes or range punctuation.
  if (!/^[^\s'!:]+$/u.test(name)) return null;
  return { sheet: name, cells: text.slice(bang + 1) };
}

const RANGE_HELP = "an A1 range such as B2:D10, 'Q1 Budget'!A1:Z100, Sheet2!A:C or 3:5 (columns A to XFD, rows from 1)";

/**
 * Reads an A1 range (`B2:D10`, `'Q1 Budget'!A1:Z100`, `Sheet2!A:C`, `3:5`, `C7`, `A2:C`)
 * and throws `validation_error` on the `field` it came from when it is not one. A range
 * written backwards (`D10:B2`) is the same rectangle.
 */
export function parseA1Range(text: string, field = "range"): A1Range {
  const refuse = () => invalidField(field, `must be ${RANGE_HELP}`);
  if (text.length === 0 || text.length > 300) throw refuse();
  const split = splitSheet(text.trim());
  if (split === null) throw refuse();
  const parts = split.cells.split(":");
  if (parts.length > 2) throw refuse();
  const start = parseBound(parts[0] ?? "");
  const end = parts.length === 2 ? parseBound(parts[1] ?? "") : start;
  if (start === null || end === null) throw refuse();
  // A lone bound must be a cell; a pair must be two cells, two columns, two rows, or a
  // cell and a column (`A2:C`, to the last row).
  const isCell = (bound: Bound) => bound.column !== null && bound.row !== null;
  if (parts.length === 1 && !isCell(start)) throw refuse();
  if ((start.column === null) !== (end.column === null) && !(isCell(start) && end.row === null)) throw refuse();
  if ((start.row === null) !== (end.row === null) && !(isCell(start) && end.row === null)) throw refuse();
  const columns = [start.column ?? 1, end.column ?? start.column ?? 1];
  const rows = [start.row ?? 1, end.row ?? start.row ?? 1];
  const openColumns = start.column === null;
  const openRows = start.row === null || end.row === null;
  return {
    sheet: split.sheet,
    firstRow: openRows && start.row === null ? 1 : Math.min(rows[0] as number, rows[1] as number),
    lastRow: openRows ? null : Math.max(rows[0] as number, rows[1] as number),
    firstColumn: openColumns ? 1 : Math.min(columns[0] as number, columns[1] as number),
    lastColumn: openColumns ? null : Math.max(columns[0] as number, columns[1] as number),
  };
}

/** A sheet's name as a range writes it: bare when nothing could misread it, else quoted. */
export function quoteSheetName(name: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}[0-9]+$/.test(name) && !/^R[0-9]*C[0-9]*$/i.test(name);
  return plain ? name : `'${name.replaceAll("'", "''")}'`;
}

/**
 * A range on a named sheet in A1 notation: `'Q1 Budget'!A1:Z100`, or with open ends as
 * they were asked for (`Sheet1!A:C`, `Sheet1!3:5`, `Sheet1!A2:C`).
 */
export function formatA1Range(range: Omit<A1Range, "sheet"> & { sheet: string }): string {
  const sheet = `${quoteSheetName(range.sheet)}!`;
  const first = columnLetters(range.firstColumn);
  if (range.lastColumn === null) return `${sheet}${range.firstRow}:${range.lastRow ?? range.firstRow}`;
  const last = columnLetters(range.lastColumn);
  if (range.lastRow === null) {
    return range.firstRow === 1 ? `${sheet}${first}:${last}` : `${sheet}${first}${range.firstRow}:${last}`;
  }
  const start = `${first}${range.firstRow}`;
  const end = `${last}${range.lastRow}`;
  return `${sheet}${start === end ? start : `${start}:${end}`}`;
}
