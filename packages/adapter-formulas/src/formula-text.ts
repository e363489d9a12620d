import {
  type CellArea,
  columnLetters,
  columnNumber,
  quoteSheetName,
  STRUCTURE_MAX_COLUMNS,
  STRUCTURE_MAX_ROWS,
  type StructureChange,
  sameSheet,
  spanAfterDelete,
  spanAfterInsert,
} from "@cellar/core";
import { type LexedToken, lex } from "fast-formula-parser/grammar/lexing.js";

/** The last row and column of a worksheet. */
const LAST_ROW = 1_048_576;
const LAST_COLUMN = 16_384;

/** A reference as written: its sheet (null: the formula's own), the rectangle, and which of its bounds are absolute. */
interface WrittenReference {
  readonly sheet: string | null;
  readonly area: Omit<CellArea, "sheet">;
}

/** A formula split into tokens by fast-formula-parser's lexer (the one its parser reads), or why it cannot be. */
export function tokensOf(formula: string): LexedToken[] | string {
  try {
    return lex(formula).tokens;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /Error at position \d+:(\d+)/.exec(message)?.[1];
    return position === undefined
      ? "it has a character a formula cannot hold"
      : `it cannot be read at character ${position}`;
  }
}

/** A sheet token's name: `Sheet1!` or `'It''s'!`. */
function sheetName(token: LexedToken): string {
  const image = token.image.slice(0, -1);
  return image.startsWith("'") ? image.slice(1, -1).replaceAll("''", "'") : image;
}

const CELL = /^(\$?)([A-Za-z]{1,3})(\$?)(\d+)$/;
const COLUMN = /^(\$?)([A-Za-z]{1,3})$/;
const ROW = /^(\$?)(\d+)$/;

/** The tokens of a reference at `at`: [first, colon?, last?], and what it covers; null when the token starts none. */
function referenceAt(
  tokens: readonly LexedToken[],
  at: number,
): { end: number; reference: WrittenReference; parts: number[] } | null {
  let sheet: string | null = null;
  let start = at;
  const first = tokens[at];
  if (first === undefined) return null;
  if (first.tokenType.name === "Sheet" || first.tokenType.name === "SheetQuoted") {
    sheet = sheetName(first);
    start = at + 1;
  }
  const a = tokens[start];
  if (a === undefined) return null;
  const colon = tokens[start + 1]?.tokenType.name === "Colon";
  const b = colon ? tokens[start + 2] : undefined;
  const kind = a.tokenType.name;
  /** The reference from `start` to `start + 2` (`A1:B2`, `A:C`, `3:5`) or `start` alone, its corners in either order. */
  const spanning = (rows: [number, number], columns: [number, number], single = false) => ({
    end: start + (single ? 1 : 3),
    parts: single ? [start] : [start, start + 2],
    reference: {
      sheet,
      area: {
        firstRow: Math.min(...rows),
        lastRow: Math.max(...rows),
        firstColumn: Math.min(...columns),
        lastColumn: Math.max(...columns),
      },
    },
  });
  if (kind === "Cell") {
    const from = CELL.exec(a.image);
    if (from === null) return null;
    const row = Number(from[4]);
    const column = columnNumber(from[2] as string);
    const to = b?.tokenType.name === "Cell" ? CELL.exec(b.image) : null;
    if (to !== null && to !== undefined) {
      return spanning([row, Number(to[4])], [column, columnNumber(to[2] as string)]);
    }
    return spanning([row, row], [column, column], true);
  }
  if (colon && b !== undefined) {
    // Whole columns (`A:C`, lexed as columns or names) and whole rows (`3:5`).
    const fromColumn = COLUMN.exec(a.image);
    const toColumn = COLUMN.exec(b.image);
    if (fromColumn !== null && toColumn !== null && (kind === "Column" || kind === "Name")) {
      const first = columnNumber(fromColumn[2] as string);
      const last = columnNumber(toColumn[2] as string);
      if (first <= LAST_COLUMN && last <= LAST_COLUMN) return spanning([1, LAST_ROW], [first, last]);
    }
    const fromRow = ROW.exec(a.image);
    const toRow = ROW.exec(b.image);
    if (fromRow !== null && toRow !== null && kind === "Number") {
      return spanning([Number(fromRow[2]), Number(toRow[2])], [1, LAST_COLUMN]);
    }
  }
  return null;
}

/** What a formula's tokens name: its references, defined names and functions (upper case, without `_xlfn.`). */
export interface LexedReading {
  readonly references: WrittenReference[];
  readonly names: string[];
  readonly functions: string[];
  /** A table's or another workbook's reference (`[`), which Cellar does not compute. */
  readonly brackets: boolean;
}

export function readTokens(tokens: readonly LexedToken[]): LexedReading {
  const references: WrittenReference[] = [];
  const names: string[] = [];
  const functions = new Set<string>();
  let brackets = false;
  for (let at = 0; at < tokens.length; ) {
    const token = tokens[at] as LexedToken;
    const kind = token.tokenType.name;
    if (kind === "Function") {
      functions.add(functionName(token.image));
      at++;
      continue;
    }
    if (kind === "OpenSquareParen") brackets = true;
    const reference = referenceAt(tokens, at);
    if (reference !== null) {
      references.push(reference.reference);
      at = reference.end;
      continue;
    }
    // A name, or a word the lexer took for a column (`Tax`): a defined name where it stands alone.
    if (kind === "Name" || kind === "Column") names.push(token.image.replace(/^\$/, ""));
    at++;
  }
  return { references, names, functions: [...functions], brackets };
}

/**
 * The one reference a text is (`B7`, `Sheet2!A1:C9`, `'Q1 Sales'!D:D`), as `INDIRECT`
 * reads it; a defined name as `{ name }`; null when the text is anything else.
 */
export function referenceOf(text: string): WrittenReference | { readonly name: string } | null {
  const tokens = tokensOf(text.trim());
  if (typeof tokens === "string" || tokens.length === 0) return null;
  const reference = referenceAt(tokens, 0);
  if (reference !== null) return reference.end === tokens.length ? reference.reference : null;
  const only = tokens[0] as LexedToken;
  const kind = only.tokenType.name;
  return tokens.length === 1 && (kind === "Name" || kind === "Column") ? { name: only.image } : null;
}

/** A function token's name (`_xlfn.CONCAT(` → `CONCAT`). */
export function functionName(image: string): string {
  return image
    .slice(0, -1)
    .replace(/^_xlfn\._xlws\.|^_xlfn\.|^_xlws\./i, "")
    .toUpperCase();
}

/**
 * The formula with its relative references moved by `rows` and `columns`; absolute parts
 * (`$A`, `$1`) stay. A reference moved off the sheet becomes `#REF!`. Everything else is
 * kept exactly as written, spaces included.
 */
export function moveReferences(formula: string, rows: number, columns: number): string {
  if (rows === 0 && columns === 0) return formula;
  return withReferencesReplaced(formula, (parts, prefix) => {
    const moved = parts.map((part) => moveBound(part, rows, columns));
    return moved.some((text) => text === null) ? "#REF!" : (prefix ?? "") + moved.join(":");
  });
}

/**
 * The formula with each reference's text (its sheet prefix included) replaced by what
 * `replace` gives for it, or left as written where it gives null; everything else kept
 * exactly as written, spaces included. `replace` is given the bounds as written (`B$3`,
 * `C`), the sheet prefix as written (`'Q1 Budget'!`) or null, and the sheet it names or null.
 */
function withReferencesReplaced(
  formula: string,
  replace: (parts: string[], prefix: string | null, sheet: string | null) => string | null,
): string {
  const tokens = tokensOf(formula);
  if (typeof tokens === "string") return formula;
  let out = "";
  let copied = 0;
  for (let at = 0; at < tokens.length; ) {
    const reference = referenceAt(tokens, at);
    if (reference === null) {
      at++;
      continue;
    }
    const first = tokens[at] as LexedToken;
    const last = tokens[reference.parts[reference.parts.length - 1] as number] as LexedToken;
    const sheet = reference.reference.sheet;
    const parts = reference.parts.map((part) => (tokens[part] as LexedToken).image);
    const replaced = replace(parts, sheet === null ? null : first.image, sheet);
    at = reference.end;
    if (replaced === null) continue;
    out += formula.slice(copied, first.startOffset) + replaced;
    copied = last.startOffset + last.image.length;
  }
  return out + formula.slice(copied);
}

/** One bound of a reference (`B$3`, `$C`, `7`) moved; null when it leaves the sheet. */
function moveBound(image: string, rows: number, columns: number): string | null {
  const bound = boundOf(image);
  if (bound === null) return image;
  const column = bound.column === null || bound.columnAbsolute ? bound.column : bound.column + columns;
  const row = bound.row === null || bound.rowAbsolute ? bound.row : bound.row + rows;
  if (column !== null && (column < 1 || column > LAST_COLUMN)) return null;
  if (row !== null && (row < 1 || row > LAST_ROW)) return null;
  return boundText({ ...bound, column, row });
}

/** A bound of a reference as written: its column and row (null where it has none) and which are absolute. */
interface WrittenBound {
  readonly column: number | null;
  readonly row: number | null;
  readonly columnAbsolute: boolean;
  readonly rowAbsolute: boolean;
}

function boundOf(image: string): WrittenBound | null {
  const cell = CELL.exec(image);
  if (cell !== null) {
    return {
      column: columnNumber(cell[2] as string),
      row: Number(cell[4]),
      columnAbsolute: cell[1] === "$",
      rowAbsolute: cell[3] === "$",
    };
  }
  const column = COLUMN.exec(image);
  if (column !== null) {
    return {
      column: columnNumber(column[2] as string),
      row: null,
      columnAbsolute: column[1] === "$",
      rowAbsolute: false,
    };
  }
  const row = ROW.exec(image);
  if (row !== null) return { column: null, row: Number(row[2]), columnAbsolute: false, rowAbsolute: row[1] === "$" };
  return null;
}

function boundText(bound: WrittenBound): string {
  const column = bound.column === null ? "" : `${bound.columnAbsolute ? "$" : ""}${columnLetters(bound.column)}`;
  const row = bound.row === null ? "" : `${bound.rowAbsolute ? "$" : ""}${bound.row}`;
  return column + row;
}

/**
 * The formula, on sheet `own`, with its references following a change of structure as
 * Excel's do (decisions §9): moved, grown or shrunk with their cells, `#REF!` where all
 * their cells or their sheet are gone, a renamed sheet's new name (quoted where it must
 * be). Everything else is kept exactly as written.
 */
export function restructureReferences(formula: string, own: string, change: StructureChange): string {
  return withReferencesReplaced(formula, (parts, prefix, sheet) =>
    restructuredReference(parts, prefix, sheet ?? own, change),
  );
}

/** A reference's new text after `change`, its sheet prefix (as written, or null) included; null when it stays as written. */
function restructuredReference(
  parts: readonly string[],
  prefix: string | null,
  sheet: string,
  change: StructureChange,
): string | null {
  if (change.kind === "rename_sheet") {
    if (prefix === null || !sameSheet(sheet, change.sheet)) return null;
    return `${quoteSheetName(change.to)}!${parts.join(":")}`;
  }
  if (!sameSheet(sheet, change.sheet)) return null;
  if (change.kind === "delete_sheet") return prefix === null ? null : "#REF!";
  const bounds = parts.map(boundOf);
  if (bounds.some((bound) => bound === null)) return null;
  const written = bounds as WrittenBound[];
  const rows = change.kind === "insert_rows" || change.kind === "delete_rows";
  const along = (bound: WrittenBound) => (rows ? bound.row : bound.column);
  // A whole column does not move with rows, nor a whole row with columns.
  if (written.some((bound) => along(bound) === null)) return null;
  const positions = written.map((bound) => along(bound) as number);
  const low = Math.min(...positions);
  const high = Math.max(...positions);
  const limit = rows ? STRUCTURE_MAX_ROWS : STRUCTURE_MAX_COLUMNS;
  const span =
    change.kind === "insert_rows" || change.kind === "insert_columns"
      ? spanAfterInsert(low, high, change.at, change.count, limit)
      : spanAfterDelete(low, high, change.at, change.count);
  if (span !== null && span[0] === low && span[1] === high) return null;
  const sheetPart = prefix ?? "";
  if (span === null) return `${sheetPart}#REF!`;
  const moved = written.map((bound, k) => {
    const position = (positions[k] as number) === low ? span[0] : span[1];
    return rows ? { ...bound, row: position } : { ...bound, column: position };
  });
  return sheetPart + moved.map(boundText).join(":");
}
